#!/bin/bash
# Sixth session: globe.pool_decode places each leaf's vertices once for the draw (the vertex
# shader no longer looks heights up in the tile cache per drawn corner): the ship path at 1080p,
# pixel errors 1 and 2 (compare run 16), and the Earth descent to 2 m.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0"
for px in 1 2; do
  echo "== ship path, default pool, --pixel-error $px"
  $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error $px --json $J/ship-px$px.json 2>&1 | grep -v XDG | grep -E "globe\.|pool\.|cbt|frame total|^leaves|near_edge|capped"
done
echo "== ship path, --pixel-error 2, atmosphere and sea off"
$B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --atmosphere off --sea off --json $J/ship-px2-bare.json 2>&1 | grep -v XDG | grep -E "pool_draw|frame total|^leaves"
echo "== Earth descent to 2 m, --pixel-error 2"
$B bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2040 --pixel-error 2 --json $J/descent2m-px2.json 2>&1 | grep -v XDG | grep -E "globe\.|pool\.|cbt|frame total|^leaves|near_edge|capped"
} > $OUT/run18-log.txt 2>&1
tar -czf $OUT/run18-json.tar.gz -C $J .
tail -c 11000 $OUT/run18-log.txt
