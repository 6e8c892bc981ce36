#!/bin/bash
# Run 63: one binary (new: 66ea0f0 plus `bench --pass-timing`), the frame timed pass by pass (on,
# the default) and by its bounds alone (off: frame.start and frame.end, no timestamps around the
# passes between), two rounds alternating after the warm-up benches of ab.sh: the ship path at
# 2 px (300 frames) and the Taiwan descent (2040 frames) at 1920x1080.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
/tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json /tmp/warm2.json > /dev/null 2>&1
for round in 1 2; do
for t in on off; do
  echo "== pass timing $t, round $round"
  /tmp/new bench $P --pass-timing $t --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$t-ship2-$round.json 2>&1 | grep -E "frame total|^frame" | cut -c1-120
  /tmp/new bench $P --pass-timing $t --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$t-descent-$round.json 2>&1 | grep -E "frame total|^frame" | cut -c1-120
done
done
for f in $J/*.json; do python3 -c "
import json,sys
d=json.load(open('$f')); fr=d['frame']
print('$f'.split('/')[-1], 'frame median %.3f p99 %.3f' % (fr['median_ms'], fr['p99_ms']))"; done
} > $OUT/run63-log.txt 2>&1
tar -czf $OUT/run63-json.tar.gz -C $J .
tail -c 4000 $OUT/run63-log.txt
