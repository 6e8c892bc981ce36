#!/bin/bash
# Run 73 (thirteenth session): the session's renderer against its start. prev = c5a5fdb (run 68's
# new; the renderer main started the session with), new = the merge of the one-pass CBT reduction
# (the pool's cbt.reduce at D = 20 takes it) after the tree order and the decode's vertex table.
# ab.sh (every pass timed), then new alone timed by the frame's bounds (--pass-timing off), two
# rounds of the ship path at 2 px and the descent (run 68's commands).
bash docs/benchmarks/2026-11-27-h100/ab.sh run73 > /dev/null
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
for f in $J/*.json; do python3 -c "
import json
d=json.load(open('$f')); fr=d['frame']
print('$f'.split('/')[-1], 'frame median %.3f p99 %.3f' % (fr['median_ms'], fr['p99_ms']))"; done
} >> $OUT/run73-log.txt 2>&1
tail -c 6000 $OUT/run73-log.txt
