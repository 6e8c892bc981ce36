#!/bin/bash
# Run 120 (nineteenth session, issue 15, kind nvidia-h200): the ship path at the default
# --pixel-error 1 (the benchmark's is 2), prev = 921cf55's renderer, new = 447f3bb's (fine error
# blocks), alternating, two rounds, timed by their bounds.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/prev.xz > /tmp/prev; xz -dc .devmain/exp.xz > /tmp/new; chmod +x /tmp/prev /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
/tmp/prev bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json /tmp/warm2.json > /dev/null 2>&1
for round in 1 2; do
  for b in prev new; do
    /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json $J/$b-ship1-$round.json > /dev/null 2>&1
  done
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run120-log.txt 2>&1
cat $OUT/run120-log.txt
