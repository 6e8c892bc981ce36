#!/bin/bash
# Run 68: the session's renderer against its start. prev = ebf6c10 (73aced8's renderer plus
# `bench --pass-timing`), new = c5a5fdb (no run-time-indexed arrays in the decode,
# raster.small and raster.bin). ab.sh (every pass timed), then new alone timed by the frame's
# bounds (--pass-timing off), two rounds of the ship path at 2 px and the descent.
bash docs/benchmarks/2026-11-27-h100/ab.sh run68 > /dev/null
J=/tmp/json-off; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
{
for round in 1 2; do
  /tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/new-off-ship2-$round.json > /dev/null 2>&1
  /tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/new-off-descent-$round.json > /dev/null 2>&1
done
for f in $J/*.json; do python3 -c "
import json
d=json.load(open('$f')); fr=d['frame']
print('$f'.split('/')[-1], 'frame median %.3f p99 %.3f' % (fr['median_ms'], fr['p99_ms']))"; done
} >> $OUT/run68-log.txt 2>&1
tail -c 3500 $OUT/run68-log.txt
