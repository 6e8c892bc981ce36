#!/bin/bash
# Eighth session, binary of main at d178c7d (as run 28): the Taiwan descent four times in one
# device session, bare first, to see the first bench after the machine starts (its GPU at 345 MHz).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --path assets/paths/globe-taiwan-descent.json --frames 2040"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,persistence_mode,pstate --format=csv
for v in "--atmosphere off --sea off" "" "--atmosphere off --sea off" ""; do
  /tmp/b bench $P $v --json /tmp/d.json > /dev/null 2>&1
  python3 -c "
import json; d=json.load(open('/tmp/d.json')); fr=d['frames']
print('$v', 'median', round(d['frame']['median_ms'],3), 'p99', round(d['frame']['p99_ms'],3), 'first frames', [round(x['frame_gpu_ms'],2) for x in fr[:3]], 'frame 200', round(fr[200]['frame_gpu_ms'],2))"
done
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,persistence_mode,pstate --format=csv
