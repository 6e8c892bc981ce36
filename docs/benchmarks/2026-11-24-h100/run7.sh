#!/bin/bash
# Issue 15 items 3-4 after tiles learnt their data's spacing (native_cells), and the per-frame
# near-edge histogram in globe.pool_decode: the ship path under --lod error at 1, 2 and 4 px and
# under the edge criterion at 12 px (run 5's, for the decode's cost), the bridge view's figures,
# and the planet descent.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
S=assets/paths/globe-taiwan-coast-ship.json
P="--pool-slots 1048576 --cache-tiles 2048 --size 1920x1080"
mkdir -p /tmp/r
for px in 1 2 4; do
  $B bench --terrain $E --path $S $P --pixel-error $px --frames 600 --fps 0 --json /tmp/r/ship-error$px.json 2>&1 | grep -v XDG | tail -32
done
$B bench --terrain $E --path $S $P --lod edge --frames 600 --fps 0 --json /tmp/r/ship-edge12.json 2>&1 | grep -v XDG | tail -32
for px in 1 2 4; do
  echo "== shot --pixel-error $px"
  $B shot --terrain $E --camera $S $P --pixel-error $px --out /tmp/r/bridge-error$px.png --json /tmp/r/bridge-error$px.json 2>&1 | grep -v XDG
  cat /tmp/r/bridge-error$px.json
done
cp /tmp/r/bridge-error2.png $OUT/bridge-error2.png
$B bench --terrain planet --path assets/paths/globe-taiwan-descent.json $P --frames 2040 --fps 0 --json /tmp/r/descent-pool-error.json 2>&1 | grep -v XDG | tail -32
tar -czf $OUT/results.tgz -C /tmp/r .
