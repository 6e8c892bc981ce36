#!/bin/bash
# Run 106 (eighteenth session, issue 15, kind nvidia-h100-x1): what the indirect dispatches of
# the passes over the leaves (the classify passes and globe.pool_decode) cost. One binary
# (run106.patch: BISECTOR_FIXED_DISPATCH=1 dispatches one thread per slot instead, the threads
# past the leaf count idle). Variants: ind (indirect, as main) and fix. Ship path at 2 px with every pass timed, then ship and descent timed by their
# bounds (--pass-timing off), two rounds alternating.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for v in ind fix; do
    if [ $v = fix ]; then export BISECTOR_FIXED_DISPATCH=1; else unset BISECTOR_FIXED_DISPATCH; fi
    echo "== $v round $round"
    /tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
    /tmp/new bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-off-ship2-$round.json > /dev/null 2>&1
    /tmp/new bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$v-off-descent-$round.json > /dev/null 2>&1
  done
done
unset BISECTOR_FIXED_DISPATCH
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run106-log.txt 2>&1
tar -czf $OUT/run106-json.tar.gz -C $J .
tail -c 4500 $OUT/run106-log.txt
