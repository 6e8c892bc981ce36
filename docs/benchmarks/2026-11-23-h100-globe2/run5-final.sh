#!/bin/bash
# The globe descent with the final binary (water at sea level, fragments ask for tiles): Earth paced and unpaced, planet unpaced.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040"
/tmp/b bench --terrain $E $G --json $OUT/earth-descent.json --plot $OUT/earth-descent.png 2>&1 | grep -v XDG
/tmp/b bench --terrain $E $G --fps 0 --json $OUT/earth-descent-unpaced.json 2>&1 | grep -v XDG
/tmp/b bench --terrain planet $G --fps 0 --json $OUT/planet-unpaced.json 2>&1 | grep -v XDG
/tmp/b shot --terrain $E --size 1920x1080 --max-depth 29 --cache-tiles 2048 --camera 121.625,24.155,150,292,-4,60 --out $OUT/earth-end.png 2>&1 | grep -v XDG | tail -1
