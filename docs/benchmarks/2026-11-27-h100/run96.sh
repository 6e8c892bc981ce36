#!/bin/bash
# Run 96 (seventeenth session): what pool.order's empty workgroups cost. An experiment binary (main
# at 055d069 plus run96.patch, not merged): BISECTOR_ORDER_GROUPS=N dispatches pool.order with N
# workgroups instead of one per 256 slots (4096 at 2^20 slots) once the process has recorded 610
# frames (the bench warms up for 600; the converged ship path lists at most about 1,740 x 256
# leaves, so 1,900 cover it; run 95 forced it from the first frame, and the warm-up from orbit
# lists more leaves than that). The figures only, not a fix. Ship path at 2 px, timed by its
# bounds, two rounds, then every pass timed.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
S="--path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  /tmp/exp bench $P --pass-timing off $S --json $J/base-$round.json > /dev/null 2>&1
  BISECTOR_ORDER_GROUPS=1900 /tmp/exp bench $P --pass-timing off $S --json $J/order1900-$round.json > /dev/null 2>&1
done
echo "== base, every pass timed"
/tmp/exp bench $P $S --json $J/base-timed.json 2>&1 | grep -E "pool\.order|frame total" | cut -c1-100
echo "== order1900, every pass timed"
BISECTOR_ORDER_GROUPS=1900 /tmp/exp bench $P $S --json $J/order1900-timed.json 2>&1 | grep -E "pool\.order|frame total" | cut -c1-100
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run96-log.txt 2>&1
tar -czf $OUT/run96-json.tar.gz -C $J .
tail -c 6000 $OUT/run96-log.txt
