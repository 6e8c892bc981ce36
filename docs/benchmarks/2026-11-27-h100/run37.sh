#!/bin/bash
# Tenth session, run 37 (diagnosis, an experiment binary not in the repository, its decode's
# experiment pipeline on odd frames, BISECTOR_EXP its bits): the decode
# without the tile records (1), the culling and statistics (4), the data-error sample (8: last
# frame's value at the same list index), without the
# vertices' height samples and tile records (17), without either (25); ship path at 2 px and
# the descent's pool-full stretch. Then the new binary's ship path again (run 36's showed slow-clock frames).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in base exp; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
/tmp/base bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for x in 0 1 4 8 17 25; do
  BISECTOR_EXP=$x /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/exp$x-ship2.json > /dev/null 2>&1
  python3 - $J/exp$x-ship2.json <<'PY'
import json, sys, statistics
fr = json.load(open(sys.argv[1]))['frames']
# The experiment's pipeline decodes after every other frame's update: split frames' decodes and
# merge frames' decodes, told apart by the pass that ran (pool.classify_split or _merge).
def med(split):
    v = [f['gpu_ms']['globe.pool_decode'] for f in fr[8:] if ('pool.classify_split' in f['gpu_ms']) == split]
    return statistics.median(v)
print(sys.argv[1], 'decode median after split frames %.4f, after merge frames %.4f; leaves %d' % (med(True), med(False), fr[299]['leaves']))
PY
done
for b in base exp; do /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2.json > /dev/null 2>&1; python3 docs/benchmarks/nondraw.py $J/$b-ship2.json; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
} > $OUT/run37-log.txt 2>&1
tail -c 4000 $OUT/run37-log.txt
