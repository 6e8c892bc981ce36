#!/bin/bash
# Run 95 (seventeenth session): what two of the frame's fixed costs are worth, by an experiment
# binary (main at 055d069 plus two switches, run95.patch, not merged): BISECTOR_ORDER_GROUPS=N
# dispatches pool.order with N workgroups instead of one per 256 slots (4096 at 2^20 slots; the
# ship path lists about 1,720 x 256 leaves, so 1,800 cover it: the figures only, not a fix), and
# BISECTOR_COPY_TWICE=1 copies the changed blocks' count into cbt.reduce's arguments twice (what
# one more transfer command and its barrier cost in the span). Ship path at 2 px, timed by its
# bounds, two rounds.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  /tmp/exp bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/base-$round.json > /dev/null 2>&1
  BISECTOR_ORDER_GROUPS=1800 /tmp/exp bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/order1800-$round.json > /dev/null 2>&1
  BISECTOR_COPY_TWICE=1 /tmp/exp bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/copytwice-$round.json > /dev/null 2>&1
done
for v in base order1800; do
  echo "== $v, every pass timed"
  if [ $v = order1800 ]; then export BISECTOR_ORDER_GROUPS=1800; fi
  /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-timed.json 2>&1 | grep -E "pool\.|globe.pool|cbt|frame total" | cut -c1-100
done
unset BISECTOR_ORDER_GROUPS
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run95-log.txt 2>&1
tar -czf $OUT/run95-json.tar.gz -C $J .
tail -c 6000 $OUT/run95-log.txt
