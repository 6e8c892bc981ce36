#!/bin/bash
# After the compute shade (issue 18) and the atmosphere per vertex with the sky scissored
# (issue 17): the flat terrain's hardware vs compute paths, and the globe descent's atmosphere and
# sea cost on the heap and on the default pool.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
L="--path assets/paths/low-flyover.json --size 1920x1080 --frames 600"
for r in hardware compute; do
  echo "== low flyover, --raster $r"
  $B bench $L --raster $r --json $J/raster-low-$r.json 2>&1 | grep -v XDG | grep -E "raster|shade|render|leb|cbt|frame total|^leaves"
done
for r in hardware compute; do
  echo "== low flyover --lod edge --pixel-target 4, --raster $r"
  $B bench $L --raster $r --lod edge --pixel-target 4 --json $J/raster-low-edge4-$r.json 2>&1 | grep -v XDG | grep -E "raster|shade|render|frame total|^leaves"
done
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040 --fps 0"
for heap in "--pool-slots 0" ""; do
  for v in "" "--sea off" "--atmosphere off --sea off"; do
    name=$(echo "x $heap $v" | tr -d ' -')
    echo "== planet descent $heap $v"
    $B bench --terrain planet $G $heap $v --json $J/planet-$name.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|frame total|^leaves"
  done
done
} > $OUT/run14-log.txt 2>&1
tar -czf $OUT/run14-json.tar.gz -C $J .
tail -c 11000 $OUT/run14-log.txt
