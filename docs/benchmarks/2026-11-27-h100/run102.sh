#!/bin/bash
# Run 102 (seventeenth session, issue 15): no error sample in a split frame's decode.
# prev = main at 608a587 (the reduction in pool.order's dispatch); new = run102.patch on it: a
# split frame's globe.pool_decode leaves out the data's error bound (only a split frame's classify
# reads it, and the next frame merges), under the error criterion (ERROR_SAMPLE = false).
# ab-off.sh: two rounds of the ship path at 2 px and the Taiwan descent with every pass timed,
# then both timed by their bounds; then the ship path at --lod edge --pixel-target 16 (where
# both binaries are the same: the edge criterion samples no error), timed by its bounds.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run102
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300"
{
for round in 1 2; do
  for b in prev new; do
    /tmp/$b bench $P --lod edge --pixel-target 16 --json /tmp/json-off/$b-edge16-$round.json > /dev/null 2>&1
    python3 docs/benchmarks/nondraw.py /tmp/json-off/$b-edge16-$round.json
  done
done
} >> $OUT/run102-log.txt 2>&1
tar -czf $OUT/run102-off-json.tar.gz -C /tmp/json-off .
tail -c 5000 $OUT/run102-log.txt
