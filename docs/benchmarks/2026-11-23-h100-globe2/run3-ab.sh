#!/bin/bash
# A/B of cbt.reduce: old = 6866dd1 (whole bitfield every frame), new = changed blocks only. Unpaced.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector-old.gz > /tmp/old; gunzip -c .devmain/bisector-new.gz > /tmp/new; chmod +x /tmp/old /tmp/new
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040"
for round in 1 2; do for v in old new; do
  echo "=== $v round $round"
  /tmp/$v bench --terrain planet $G --fps 0 --json $OUT/planet-$v-$round.json 2>&1 | grep -E "^(globe|cbt|frame total)"
  echo "--- low flyover"; /tmp/$v bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --fps 0 --json /tmp/l.json 2>&1 | grep -E "^(leb|cbt|frame total|leaves)"
  echo "--- high pan"; /tmp/$v bench --path assets/paths/high-pan.json --size 1920x1080 --frames 300 --fps 0 --json /tmp/h.json 2>&1 | grep -E "^(leb|cbt|frame total|leaves)"
done; done
echo "=== Earth descent, new, paced (60 fps) and unpaced"
/tmp/new bench --terrain $E $G --json $OUT/earth-descent.json --plot $OUT/earth-descent.png 2>&1 | grep -v XDG
/tmp/new bench --terrain $E $G --fps 0 --json $OUT/earth-descent-unpaced.json 2>&1 | grep -v XDG
