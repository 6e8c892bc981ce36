#!/bin/bash
# Run 77 (fourteenth session): classify_merge's parent vertex from the sibling. prev = bd71a69's renderer
# (the same as cb3bbf8's), new = 7ee04dd (the parent's third vertex from the odd sibling's decoded
# vertices when the sibling is the next listed leaf, instead of a height sample from the tile
# cache). ab.sh (every pass timed), then both timed by their bounds alone
# (--pass-timing off), two rounds of the ship path at 2 px and the descent (run 73's commands).
bash docs/benchmarks/2026-11-27-h100/ab.sh run77 > /dev/null
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
} >> $OUT/run77-log.txt 2>&1
tar -czf $OUT/run77-off-json.tar.gz -C $J .
tail -c 7000 $OUT/run77-log.txt
