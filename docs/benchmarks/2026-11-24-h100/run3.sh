#!/bin/bash
# After issue 14's one schedule (LebTree + LebScene, one HeadlessView, one bench loop): the same
# planet descent and low flyover as run1.sh, to show that no pass got slower; then issue 15's
# bridge view (assets/paths/globe-taiwan-coast-ship.json) on the repository's data: the bench
# along the ship path and shot --json of its first pose (near_edge_m, capped_leaves).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
$B info 2>&1 | grep -v XDG | head -4
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040"
$B bench --terrain planet $G --fps 0 --json $OUT/planet-unpaced.json 2>&1 | grep -v XDG
$B bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --pixel-target 12 --json $OUT/low-12.json 2>&1 | grep -v XDG
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
S=assets/paths/globe-taiwan-coast-ship.json
$B bench --terrain $E --path $S --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 600 --fps 0 --json $OUT/ship-unpaced.json 2>&1 | grep -v XDG
$B shot --terrain $E --camera $S --size 1920x1080 --max-depth 29 --cache-tiles 2048 --out $OUT/ship.png --json $OUT/ship-figures.json 2>&1 | grep -v XDG
cat $OUT/ship-figures.json
