#!/bin/bash
# Run 122 (twentieth session, issue 15, kind nvidia-h200): prev = e4241f1's renderer, new = the
# data's error projected along the line of sight (globe_vertical_sine: a vertical error seen at
# angle a from the vertical projects to e sin a / d). The ship path at 2 px (two rounds,
# alternating), the descent to 2 m (1 and 2 px) and the Taiwan descent, timed by their bounds.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/head.xz > /tmp/prev; xz -dc .devmain/vert.xz > /tmp/new; chmod +x /tmp/prev /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for round in 1 2; do
  for b in prev new; do
    /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json > /dev/null 2>&1
  done
done
for b in prev new; do
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/$b-descent2m.json > /dev/null 2>&1
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --pixel-error 2 --json $J/$b-descent2m-px2.json > /dev/null 2>&1
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent.json > /dev/null 2>&1
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run122-log.txt 2>&1
tar -cJf $OUT/run122-json.tar.xz -C $J .
tail -c 5000 $OUT/run122-log.txt
