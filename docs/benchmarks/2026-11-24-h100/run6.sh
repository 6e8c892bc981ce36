#!/bin/bash
# Issue 15 items 3-4 on the H100: the globe over a 2^20-slot pool under the data's screen-space
# error (--lod error, the pool's default now) with the detail below the data, on the ship path,
# the bridge view (shot --json at several targets, error and edge) and the planet descent.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
S=assets/paths/globe-taiwan-coast-ship.json
P="--pool-slots 1048576 --cache-tiles 2048 --size 1920x1080"
mkdir -p /tmp/r
$B bench --terrain $E --path $S $P --frames 600 --fps 0 --json /tmp/r/ship-error1.json 2>&1 | grep -v XDG
$B bench --terrain $E --path $S $P --pixel-error 2 --frames 600 --fps 0 --json /tmp/r/ship-error2.json 2>&1 | grep -v XDG | tail -30
for lod in "error --pixel-error 1" "error --pixel-error 2" "error --pixel-error 1 --detail off" "edge --pixel-target 2" "edge --pixel-target 4"; do
  name=$(echo $lod | tr -d ' -')
  echo "== shot --lod $lod"
  $B shot --terrain $E --camera $S $P --lod $lod --out /tmp/r/bridge-$name.png --json /tmp/r/bridge-$name.json 2>&1 | grep -v XDG
  cat /tmp/r/bridge-$name.json
done
cp /tmp/r/bridge-errorpixelerror1.png $OUT/bridge-error1.png
cp /tmp/r/bridge-edgepixeltarget4.png $OUT/bridge-edge4.png
$B bench --terrain planet --path assets/paths/globe-taiwan-descent.json $P --frames 2040 --fps 0 --json /tmp/r/descent-pool-error.json 2>&1 | grep -v XDG
tar -czf $OUT/results.tgz -C /tmp/r .
