#!/bin/bash
# After the depth policy: terrain (D 24, whole reduction) and the planet descent (changed blocks), unpaced.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector-new.gz > /tmp/new; gunzip -c .devmain/bisector-old.gz > /tmp/old; chmod +x /tmp/new /tmp/old
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040"
for v in new old new; do
echo "=== $v"
/tmp/$v bench --terrain planet $G --fps 0 --json $OUT/planet-$v.json 2>&1 | grep -E "^(globe|cbt|frame total)"
echo "--- low flyover"; /tmp/$v bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --fps 0 --json /tmp/l.json 2>&1 | grep -E "^(leb|cbt|frame total|leaves)"
echo "--- high pan"; /tmp/$v bench --path assets/paths/high-pan.json --size 1920x1080 --frames 300 --fps 0 --json /tmp/h.json 2>&1 | grep -E "^(leb|cbt|frame total|leaves)"
done
