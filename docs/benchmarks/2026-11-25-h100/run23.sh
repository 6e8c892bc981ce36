#!/bin/bash
# Seventh session, the default raster now auto (compute on the H100), binary of main at 9031f6d:
# issue 17's cost of the atmosphere and the sea on the compute path (the Taiwan descent and the
# ship path at 2 px, with and without them); the flat terrain's low flyover, hardware against the
# default; `info`.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
for v in "" "--atmosphere off --sea off" "--sea off"; do
  n=$(echo "x $v" | tr -d ' -')
  echo "== Taiwan descent, default raster $v"
  $B bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 $v --json $J/descent-$n.json 2>&1 | grep -v XDG | grep -E "^raster:|sky|sea\.|atmosphere|shade|frame total|^leaves" | cut -c1-120
  echo "== ship path 2 px, default raster $v"
  $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 $v --json $J/ship-$n.json 2>&1 | grep -v XDG | grep -E "sky|sea\.|atmosphere|shade|frame total|^leaves" | cut -c1-120
done
for r in hardware auto; do
  echo "== low flyover, --raster $r"
  $B bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --raster $r --json $J/flyover-$r.json 2>&1 | grep -v XDG | grep -E "^raster:|raster\.|shade|render.draw|frame total|^leaves" | cut -c1-120
done
} > $OUT/run23-log.txt 2>&1
tar -czf $OUT/run23-json.tar.gz -C $J .
tail -c 9000 $OUT/run23-log.txt
