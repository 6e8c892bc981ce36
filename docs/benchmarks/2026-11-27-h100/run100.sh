#!/bin/bash
# Run 100 (seventeenth session, issue 15): what pool.order's free list costs a split frame. Frames
# alternate split and merge, and only a split frame's pool.allocate reads the free list, so the
# list a split frame's pool.order writes is never read: the merge frame after it writes it again.
# An experiment binary (run100.patch on d1c468e, not merged): BISECTOR_ORDER_NO_FREE_LIST_ON_SPLIT=1
# runs split frames' pool.order without the free list (a second pipeline, FREE_LIST = false).
# Ship path at 2 px and the Taiwan descent, timed by their bounds, two rounds, then the ship path
# with every pass timed.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
S="--path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2"
D="--path assets/paths/globe-taiwan-descent.json --frames 2040"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/exp bench $P $S --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  /tmp/exp bench $P --pass-timing off $S --json $J/base-ship-$round.json > /dev/null 2>&1
  BISECTOR_ORDER_NO_FREE_LIST_ON_SPLIT=1 /tmp/exp bench $P --pass-timing off $S --json $J/nofl-ship-$round.json > /dev/null 2>&1
  /tmp/exp bench $P --pass-timing off $D --json $J/base-descent-$round.json > /dev/null 2>&1
  BISECTOR_ORDER_NO_FREE_LIST_ON_SPLIT=1 /tmp/exp bench $P --pass-timing off $D --json $J/nofl-descent-$round.json > /dev/null 2>&1
done
echo "== base, every pass timed"
/tmp/exp bench $P $S --json $J/base-timed.json 2>&1 | grep -E "pool\.order|frame total" | cut -c1-100
echo "== nofl, every pass timed"
BISECTOR_ORDER_NO_FREE_LIST_ON_SPLIT=1 /tmp/exp bench $P $S --json $J/nofl-timed.json 2>&1 | grep -E "pool\.order|frame total" | cut -c1-100
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run100-log.txt 2>&1
tar -czf $OUT/run100-json.tar.gz -C $J .
tail -c 6000 $OUT/run100-log.txt
