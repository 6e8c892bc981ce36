#!/bin/bash
# ab.sh RUN, then both binaries timed by their bounds alone (--pass-timing off): two rounds of the
# ship path at 2 px and the descent (run 73's commands), each frame's non-draw span read by
# nondraw.py (runs 74, 76, 77 and the fifteenth session's).
# Usage (from the repository root on the device machine): bash ab-off.sh RUN.
RUN=$1
bash docs/benchmarks/2026-11-27-h100/ab.sh $RUN > /dev/null
J=/tmp/json-off; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
{
for round in 1 2; do
  for b in prev new; do
    /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-off-ship2-$round.json > /dev/null 2>&1
    /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-off-descent-$round.json > /dev/null 2>&1
  done
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} >> $OUT/$RUN-log.txt 2>&1
tar -czf $OUT/$RUN-off-json.tar.gz -C $J .
tail -c 7000 $OUT/$RUN-log.txt
