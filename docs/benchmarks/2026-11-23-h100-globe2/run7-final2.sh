#!/bin/bash
# Final binary (decode asks for large leaves' tiles on a grid): Earth paced and unpaced, planet unpaced;
# then an A/B of the draw against the binary with neither fragment requests nor the grid, unpaced.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for v in grid nofrag; do gunzip -c .devmain/b-$v.gz > /tmp/$v; chmod +x /tmp/$v; done
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040"
/tmp/grid bench --terrain $E $G --json $OUT/earth-descent.json --plot $OUT/earth-descent.png 2>&1 | grep -v XDG
/tmp/grid bench --terrain $E $G --fps 0 --json $OUT/earth-descent-unpaced.json 2>&1 | grep -v XDG
/tmp/grid bench --terrain planet $G --fps 0 --json $OUT/planet-unpaced.json 2>&1 | grep -v XDG
for v in nofrag grid; do echo "=== $v"; /tmp/$v bench --terrain $E $G --fps 0 --json /tmp/x.json 2>&1 | grep -E "^(globe|cbt|frame total|tile cache)"; done
