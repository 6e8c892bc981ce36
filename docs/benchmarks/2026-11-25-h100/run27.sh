#!/bin/bash
# Eighth session, binary of main at 3f3052d (atmosphere.views: the sky view and the aerial
# perspective in one pass); otherwise the commands of run26.sh.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
for v in "" "--atmosphere off --sea off"; do
  n=$(echo "x $v" | tr -d ' -')
  echo "== Taiwan descent $v"
  $B bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 $v --json $J/descent-$n.json 2>&1 | grep -v XDG | grep -E "^raster:|frame.start|atmosphere.views|shade|frame total|^leaves" | cut -c1-120
  echo "== ship path 2 px $v"
  $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 $v --json $J/ship2-$n.json 2>&1 | grep -v XDG | grep -E "frame.start|atmosphere.views|shade|frame total|^leaves" | cut -c1-120
done
echo "== ship path 1 px"
$B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json $J/ship1-x.json 2>&1 | grep -v XDG | grep -E "frame.start|frame total|^leaves" | cut -c1-120
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run27-log.txt 2>&1
tar -czf $OUT/run27-json.tar.gz -C $J .
tail -c 9000 $OUT/run27-log.txt
