#!/bin/bash
# Issue 18's first slice: the flat terrain rasterised in compute (--raster compute: raster.small
# into a 64-bit visibility buffer, raster.large through the hardware, shade) against the hardware
# path, on the low flyover at 1080p; the large-triangle threshold swept; auto.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
$B info 2>&1 | grep -v XDG
L="--path assets/paths/low-flyover.json --size 1920x1080 --frames 600"
for r in hardware compute auto; do
  echo "== low flyover, --raster $r"
  $B bench $L --raster $r --json $J/raster-low-$r.json 2>&1 | grep -v XDG
done
for px in 8 16 64; do
  echo "== low flyover, --raster compute --raster-large-px $px"
  $B bench $L --raster compute --raster-large-px $px --json $J/raster-low-compute-$px.json 2>&1 | grep -v XDG | grep -E "raster|shade|render|frame total|^leaves"
done
echo "== low flyover at --lod edge --pixel-target 4 (many small triangles), hardware and compute"
for r in hardware compute; do
  $B bench $L --raster $r --lod edge --pixel-target 4 --json $J/raster-low-edge4-$r.json 2>&1 | grep -v XDG | grep -E "raster|shade|render|frame total|^leaves"
done
} > $OUT/run12-log.txt 2>&1
tar -czf $OUT/run12-json.tar.gz -C $J .
tail -c 11000 $OUT/run12-log.txt
