#!/bin/bash
# A/B of the fragments' tile requests (one in 16): final vs the same with the request compiled out. Earth, unpaced.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for v in final nofrag; do gunzip -c .devmain/b-$v.gz > /tmp/$v; chmod +x /tmp/$v; done
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040 --fps 0"
for round in 1 2; do for v in final nofrag; do
  echo "=== $v round $round"; /tmp/$v bench --terrain $E $G --json /tmp/x.json 2>&1 | grep -E "^(globe.draw|frame total|tile cache)"
done; done
