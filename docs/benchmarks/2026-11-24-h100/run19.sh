#!/bin/bash
# Sixth session, after merging the sea's wave tiles (issue 17): the sea's cost on the ship path at
# 1080p, 2 px error (compare run 17's --sea off with the old per-fragment waves), and the bridge
# view's shot at 1080p.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2"
for v in "" "--sea off"; do
  n=$(echo "x $v" | tr -d ' -')
  echo "== ship px2 $v"
  $B bench $P $v --json $J/ship-px2-$n.json 2>&1 | grep -v XDG | grep -E "sea\.|atmosphere|pool_draw|frame total|^leaves"
done
$B shot --terrain $E --camera assets/paths/globe-taiwan-coast-ship.json --size 1920x1080 --cache-tiles 2048 --out $OUT/ship-1080p.png 2>&1 | grep -v XDG
} > $OUT/run19-log.txt 2>&1
tar -czf $OUT/run19-json.tar.gz -C $J .
tail -c 6000 $OUT/run19-log.txt
