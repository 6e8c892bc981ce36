#!/bin/bash
# Run 101 (seventeenth session, issue 15): pool.order with the CBT's reduction in its dispatch.
# prev = main at 7b662d9 (cbt.reduce, then pool.order: two passes); new = the branch
# (pool_order_reduce.wgsl: the one-pass reduction's 16 workgroups first in pool.order's dispatch;
# pool.order's leaf count from the frame's counters; the free list built by the split frame's
# classify from the CBT the last frame reduced). ab-off.sh: two rounds of the ship path at 2 px
# and the Taiwan descent with every pass timed, then both timed by their bounds; then the ship
# path at B24's density (--lod edge --pixel-target 16), timed by its bounds.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run101
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300"
{
for round in 1 2; do
  for b in prev new; do
    /tmp/$b bench $P --lod edge --pixel-target 16 --json /tmp/json-off/$b-edge16-$round.json > /dev/null 2>&1
    python3 docs/benchmarks/nondraw.py /tmp/json-off/$b-edge16-$round.json
  done
done
} >> $OUT/run101-log.txt 2>&1
tar -czf $OUT/run101-off-json.tar.gz -C /tmp/json-off .
tail -c 5000 $OUT/run101-log.txt
