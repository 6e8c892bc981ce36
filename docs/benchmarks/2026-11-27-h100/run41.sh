#!/bin/bash
# Tenth session, run 41 (diagnosis; an experiment binary not in the repository, built from e286ded
# with a second decode pipeline that runs on odd frames, BISECTOR_EXP its bits): the height samples'
# distances from the 64-bit sea-level positions instead of a second position from the 32-bit map
# point (1), without the centre's tile request (2), both (3). The decode's median after split frames
# (even: the normal pipeline) against after merge frames (odd: the experiment's); 0 is the control.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name --format=csv,noheader
/tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
for x in 0 1 2 3; do
  BISECTOR_EXP=$x /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/exp$x-ship2.json > /dev/null 2>&1
  python3 - $J/exp$x-ship2.json <<'PY'
import json, sys, statistics
fr = json.load(open(sys.argv[1]))['frames']
def med(split):
    v = [f['gpu_ms']['globe.pool_decode'] for f in fr[8:] if ('pool.classify_split' in f['gpu_ms']) == split]
    return statistics.median(v)
print(sys.argv[1], 'decode median after split frames (normal) %.4f, after merge frames (experiment) %.4f; leaves %d' % (med(True), med(False), fr[299]['leaves']))
PY
done
done
} > $OUT/run41-log.txt 2>&1
cat $OUT/run41-log.txt
