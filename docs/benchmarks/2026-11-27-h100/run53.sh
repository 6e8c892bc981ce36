#!/bin/bash
# Eleventh session, run 53, on the H100: where pool.classify_merge's time goes. One experiment
# binary (main at 0202c68 with run53.patch): its override MERGE_EXPERIMENT, from BISECTOR_EXP,
# leaves out parts of the merge criterion: 1 the parent's data-error lookup (the child's error
# instead), 2 the occlusion test, 8 the third vertex's height sample (the child's apex instead),
# 4 everything (no merge at all). The mesh changes with 1 and 4; the pass's time is what is read.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
/tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
/tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json /tmp/warm2.json > /dev/null 2>&1
for round in 1 2; do
for v in 0 1 2 3 8 11 4; do
  echo "== variant $v round $round"
  BISECTOR_EXP=$v /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json /tmp/v$v.json 2>&1 | grep -E "classify_merge|pool_decode|frame total" | cut -c1-80
  python3 docs/benchmarks/nondraw.py /tmp/v$v.json
done
done
} > $OUT/run53-log.txt 2>&1
tail -c 5000 $OUT/run53-log.txt
