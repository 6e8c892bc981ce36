#!/bin/bash
# Run 119 (nineteenth session, issue 15 item 7, kind nvidia-h200): `shot --json` of the bridge
# view (assets/paths/globe-taiwan-coast-ship.json's first pose) at 1920x1080, at the default
# --pixel-error 1 and at 2, prev = 921cf55's renderer, new = 447f3bb's (fine error blocks).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/prev.xz > /tmp/prev; xz -dc .devmain/exp.xz > /tmp/new; chmod +x /tmp/prev /tmp/new
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
{
for b in prev new; do
  for pe in 1 2; do
    echo "== $b --pixel-error $pe"
    /tmp/$b shot --terrain $E --camera assets/paths/globe-taiwan-coast-ship.json --size 1920x1080 --cache-tiles 2048 --pixel-error $pe --out $OUT/$b-bridge-pe$pe.png --json /tmp/$b-$pe.json 2>&1 | tail -1
    cat /tmp/$b-$pe.json; echo
  done
done
} > $OUT/run119-log.txt 2>&1
cat $OUT/run119-log.txt
