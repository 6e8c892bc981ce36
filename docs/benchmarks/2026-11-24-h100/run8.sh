#!/bin/bash
# The detail's cost (issue 15 item 4) after its slope came from the vertex's own bilinear cell
# (4 texels instead of 16): the ship path under --lod error at 4 px, detail on and off.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
S=assets/paths/globe-taiwan-coast-ship.json
P="--pool-slots 1048576 --cache-tiles 2048 --size 1920x1080"
for d in on off; do
  /tmp/b bench --terrain $E --path $S $P --lod error --pixel-error 4 --detail $d --frames 300 --fps 0 --json $OUT/ship-detail-$d.json 2>&1 | grep -E "classify|pool_decode|frame total|^leaves"
done
