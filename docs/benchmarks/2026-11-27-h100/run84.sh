#!/bin/bash
# Run 84 (fifteenth session): the near-edge histogram on merge frames (frames 7, 15, ... of every 8)
# instead of split frames (0, 8, ...). prev = a01c3dc, new = the working tree.
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab.sh run84 > /dev/null
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
} >> $OUT/run84-log.txt 2>&1
tar -czf $OUT/run84-off-json.tar.gz -C $J .
tail -c 7000 $OUT/run84-log.txt
