#!/bin/bash
# Run 66: binaries prev (ebf6c10) and new (the decode without run-time-indexed arrays, run 65), both
# with the frame timed by its bounds alone (--pass-timing off), two rounds alternating after the
# warm-up benches of ab.sh: the ship path at
# 2 px (300 frames) and the Taiwan descent (2040 frames) at 1920x1080.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
/tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json /tmp/warm2.json > /dev/null 2>&1
for round in 1 2; do
for t in prev new; do
  echo "== $t, pass timing off, round $round"
  /tmp/$t bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$t-ship2-$round.json 2>&1 | grep -E "frame total" | cut -c1-120
  /tmp/$t bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$t-descent-$round.json 2>&1 | grep -E "frame total" | cut -c1-120
done
done
for f in $J/*.json; do python3 -c "
import json,sys
d=json.load(open('$f')); fr=d['frame']
print('$f'.split('/')[-1], 'frame median %.3f p99 %.3f' % (fr['median_ms'], fr['p99_ms']))"; done
} > $OUT/run66-log.txt 2>&1
tar -czf $OUT/run66-json.tar.gz -C $J .
tail -c 4000 $OUT/run66-log.txt
