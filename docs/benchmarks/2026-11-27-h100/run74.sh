#!/bin/bash
# Run 74 (fourteenth session): one pool pass after the reduction. prev = b42ac38 (the renderer the
# session started with), new = b13d83a (pool.order does pool.list's work; pool.order_gains rides on
# bisect or merge; bench --pass-timing off also times the update, reduction and decode by their
# bounds: the span "nondraw"). ab.sh (every pass timed), then both timed by their bounds alone
# (--pass-timing off), two rounds of the ship path at 2 px and the descent (run 73's commands).
bash docs/benchmarks/2026-11-27-h100/ab.sh run74 > /dev/null
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
} >> $OUT/run74-log.txt 2>&1
tar -czf $OUT/run74-off-json.tar.gz -C $J .
tail -c 7000 $OUT/run74-log.txt
