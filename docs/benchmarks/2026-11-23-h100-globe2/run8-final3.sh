#!/bin/bash
# Final binary: Earth paced and unpaced, planet unpaced.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/b-grid.gz > /tmp/grid; chmod +x /tmp/grid
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040"
/tmp/grid bench --terrain $E $G --json $OUT/earth-descent.json --plot $OUT/earth-descent.png 2>&1 | grep -v XDG
/tmp/grid bench --terrain $E $G --fps 0 --json $OUT/earth-descent-unpaced.json 2>&1 | grep -v XDG
/tmp/grid bench --terrain planet $G --fps 0 --json $OUT/planet-unpaced.json 2>&1 | grep -v XDG
