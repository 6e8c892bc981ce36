#!/bin/bash
# The sky drawn after the terrain against its depth (issue 17's cost): the planet descent with the
# atmosphere on and off, as in run 10.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040 --fps 0"
for a in on off; do
  echo "== planet descent, atmosphere $a"
  $B bench --terrain planet $G --atmosphere $a --json $OUT/planet-atmosphere-$a.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|cbt|frame total|^leaves"
done
