#!/bin/bash
# Tenth session, run 36: base (09f25a6) against new (the merge frame's parents classified by the
# even child, the decoded vertices reused under motion up to a quarter of the altitude, and the
# classify and mark counters, histogram and list appends added up per workgroup), and where the
# decode's time goes: an experiment binary (not in the repository: BISECTOR_EXP bits in the
# decode's override constant from frame 700 on, frames 100-299 of the 300 measured) without the
# tile records (1), without the centre's tile request (2), without the culling and statistics (4).
# The experiment binary with BISECTOR_EXP unset is the new binary (the extra pipeline unused).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in base exp; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done; cp /tmp/exp /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
/tmp/base bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for b in base new; do
  echo "== $b"
  /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
done
for x in 0 1 2 4 5; do
  BISECTOR_EXP=$x /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/exp$x-ship2.json > /dev/null 2>&1
  python3 - $J/exp$x-ship2.json <<'PY'
import json, sys, statistics
fr = json.load(open(sys.argv[1]))['frames']
def med(a, b):
    v = [f['gpu_ms']['globe.pool_decode'] for i, f in enumerate(fr[a:b]) if (a + i) % 8 != 0]
    return statistics.median(v)
print(sys.argv[1], 'decode median, frames 8-99: %.4f, frames 108-299: %.4f' % (med(8, 100), med(108, 300)))
PY
done
for f in $J/base*.json $J/new*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run36-log.txt 2>&1
tar -czf $OUT/run36-json.tar.gz -C $J .
tail -c 6000 $OUT/run36-log.txt
