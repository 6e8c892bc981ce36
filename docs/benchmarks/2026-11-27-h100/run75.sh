#!/bin/bash
# Run 75 (fourteenth session): where the non-draw span goes after run 74, on the ship path at
# 2 px. An experiment binary (main at 6c747dd, the pool's two fills of a split frame in one, plus
# run75.patch: a DECODE_EXPERIMENT override from BISECTOR_DECODE_EXPERIMENT; not merged) leaves
# parts of globe.pool_decode out: bit 0 the vertices' tile records, bit 1 the leaf centre's tile
# request, bit 2 the error tile's record, bit 3 the near edges, bit 4 the decode's three buffer
# clears (lod_stats, near_edges, the tree's FrameStats). Each experiment every pass timed, then
# timed by its bounds (--pass-timing off: the span "nondraw").
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
/tmp/exp bench $P --json /tmp/warm.json > /dev/null 2>&1
for e in 0 1 2 4 8 16 31 0; do
  echo "== experiment $e"
  BISECTOR_DECODE_EXPERIMENT=$e /tmp/exp bench $P --json $J/e$e.json 2>&1 | grep -E "globe.pool_decode" | cut -c1-100
  python3 docs/benchmarks/nondraw.py $J/e$e.json
  BISECTOR_DECODE_EXPERIMENT=$e /tmp/exp bench $P --pass-timing off --json $J/off-e$e.json > /dev/null 2>&1
  python3 docs/benchmarks/nondraw.py $J/off-e$e.json
done
} > $OUT/run75-log.txt 2>&1
tail -c 5000 $OUT/run75-log.txt
