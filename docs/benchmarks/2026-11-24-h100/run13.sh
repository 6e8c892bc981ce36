#!/bin/bash
# After the sea (issue 17 item 3) and the pool as the globe's default (issue 15): the water's and
# the atmosphere's cost on the planet descent (heap, as runs 10-11), on the Earth descent and the
# ship path over the default 2^20-slot pool.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --pool-slots 0 --cache-tiles 2048 --frames 2040 --fps 0"
for v in "" "--sea off" "--atmosphere off --sea off"; do
  name=$(echo "x $v" | tr -d ' -')
  echo "== planet descent (heap) $v"
  $B bench --terrain planet $G $v --json $J/planet-heap-$name.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|cbt|frame total|^leaves"
done
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
for v in "" "--atmosphere off --sea off"; do
  name=$(echo "x $v" | tr -d ' -')
  echo "== Earth descent, default pool $v"
  $B bench --terrain $E --path assets/paths/globe-taiwan-descent.json --size 1920x1080 --cache-tiles 2048 --frames 2040 --fps 0 $v --json $J/earth-pool-$name.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|pool\.|cbt|frame total|^leaves|near_edge"
  echo "== ship path, default pool $v"
  $B bench --terrain $E --path assets/paths/globe-taiwan-coast-ship.json --size 1920x1080 --cache-tiles 2048 --frames 300 --fps 0 $v --json $J/ship-pool-$name.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|pool\.|cbt|frame total|^leaves|near_edge"
done
$B shot --terrain $E --camera assets/paths/globe-taiwan-coast-ship.json --size 1920x1080 --cache-tiles 2048 --out $OUT/ship-1080p.png --json $J/ship-figures.json 2>&1 | grep -v XDG
cat $J/ship-figures.json
} > $OUT/run13-log.txt 2>&1
tar -czf $OUT/run13-json.tar.gz -C $J .
tail -c 11000 $OUT/run13-log.txt
