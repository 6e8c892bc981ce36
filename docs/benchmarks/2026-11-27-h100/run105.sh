#!/bin/bash
# Run 105 (eighteenth session, issue 15, kind nvidia-h100-x1): what wgpu's zeroing of workgroup
# memory costs. One binary (run105.patch: globe.pool_decode and pool.order zero the workgroup
# memory they read before writing themselves; BISECTOR_UNZEROED lists the pipelines built without
# wgpu's zeroing). Variants: zero (every pipeline zeroed, as main) and unz (globe.pool_decode and
# pool.order not). Ship path at 2 px with every pass timed, then ship and descent timed by their
# bounds (--pass-timing off), two rounds alternating.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
U=globe.pool_decode,pool.order
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for v in zero unz; do
    if [ $v = unz ]; then export BISECTOR_UNZEROED=$U; else unset BISECTOR_UNZEROED; fi
    echo "== $v round $round"
    /tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
    /tmp/new bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-off-ship2-$round.json > /dev/null 2>&1
    /tmp/new bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$v-off-descent-$round.json > /dev/null 2>&1
  done
done
unset BISECTOR_UNZEROED
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run105-log.txt 2>&1
tar -czf $OUT/run105-json.tar.gz -C $J .
tail -c 4500 $OUT/run105-log.txt
