#!/bin/bash
# Run 107 (eighteenth session, issue 15, kind nvidia-h100-x1): prev = 5db25ef (the passes over
# the leaves in a fixed dispatch), new = run107.patch: globe.pool_decode's workgroups past the last
# leaf return at once; and, as an experiment switch of the same binary (BISECTOR_WIDE_LAST=1),
# pool.bisect and pool.merge dispatched one thread per slot (4,096 workgroups instead of 264), so
# that the gains' sum (order_gains) takes one round of loads a thread instead of two. Variants
# alternate: ship path at 2 px with every pass timed, then ship and descent timed by their bounds
# (--pass-timing off), two rounds.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for v in prev new wide; do
    b=$v; unset BISECTOR_WIDE_LAST
    if [ $v = wide ]; then b=new; export BISECTOR_WIDE_LAST=1; fi
    echo "== $v round $round"
    /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-off-ship2-$round.json > /dev/null 2>&1
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$v-off-descent-$round.json > /dev/null 2>&1
  done
done
unset BISECTOR_WIDE_LAST
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run107-log.txt 2>&1
tar -czf $OUT/run107-json.tar.gz -C $J .
tail -c 6000 $OUT/run107-log.txt
