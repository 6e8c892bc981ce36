#!/bin/bash
# Issue 15's descent extended down to 2 m (assets/paths/globe-taiwan-descent-2m.json: the Earth
# descent of globe-taiwan-descent.json, then over the sea off the Qingshui cliffs down to the ship
# path's first place at 2 m) over a 2^20-slot pool: the data's error at 1 and 4 px, and the edge
# criterion at 12 px.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
D=assets/paths/globe-taiwan-descent-2m.json
P="--pool-slots 1048576 --cache-tiles 2048 --size 1920x1080"
for lod in "error --pixel-error 1" "error --pixel-error 4" "edge"; do
  name=$(echo $lod | tr -d ' -')
  echo "== $lod"
  /tmp/b bench --terrain $E --path $D $P --lod $lod --frames 2520 --fps 0 --json $OUT/descent2m-$name.json 2>&1 | grep -v XDG
done
