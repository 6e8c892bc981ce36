#!/bin/bash
# Sixth session: occlusion culling for the globe over the pool (issue 15's targets): the ship path
# and the Earth descent to 2 m at 1080p, default 2^20-slot pool at 1 px error, occlusion on and
# off; the converged bridge view's figures at 1080p.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
$B info 2>&1 | grep -v XDG | head -3
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0"
for o in on off; do
  echo "== ship path, default pool, occlusion $o"
  $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --occlusion $o --json $J/ship-occlusion-$o.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|pool\.|cbt|frame total|^leaves|near_edge|capped"
done
for o in on off; do
  echo "== Earth descent to 2 m, default pool, occlusion $o"
  $B bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2040 --occlusion $o --json $J/descent2m-occlusion-$o.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|pool\.|cbt|frame total|^leaves|near_edge|capped"
done
for o in on off; do
  $B shot --terrain $E --camera assets/paths/globe-taiwan-coast-ship.json --size 1920x1080 --cache-tiles 2048 --occlusion $o --out $J/ship-1080p-$o.png --json $J/ship-figures-$o.json 2>&1 | grep -v XDG
  cat $J/ship-figures-$o.json
done
} > $OUT/run15-log.txt 2>&1
cp $J/ship-1080p-on.png $OUT/
tar -czf $OUT/run15-json.tar.gz -C $J --exclude '*.png' .
tail -c 11000 $OUT/run15-log.txt
