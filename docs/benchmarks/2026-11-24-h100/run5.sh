#!/bin/bash
# The globe drawn from the bisector pool (issue 15 steps 9-10): the ship path and the planet
# descent with a 2^20-slot pool, unpaced, and shot --json of the bridge view (the ship path's
# first pose) at the default 12 px target and at 2 px.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
S=assets/paths/globe-taiwan-coast-ship.json
P="--pool-slots 1048576 --cache-tiles 2048 --size 1920x1080"
$B bench --terrain $E --path $S $P --frames 600 --fps 0 --json $OUT/ship-pool.json 2>&1 | grep -v XDG
$B shot --terrain $E --camera $S $P --out $OUT/ship-pool.png --json $OUT/ship-pool-figures.json 2>&1 | grep -v XDG
cat $OUT/ship-pool-figures.json
$B shot --terrain $E --camera $S $P --pixel-target 2 --out $OUT/ship-pool-px2.png --json $OUT/ship-pool-px2-figures.json 2>&1 | grep -v XDG
cat $OUT/ship-pool-px2-figures.json
$B bench --terrain planet --path assets/paths/globe-taiwan-descent.json $P --frames 2040 --fps 0 --json $OUT/descent-pool.json 2>&1 | grep -v XDG
