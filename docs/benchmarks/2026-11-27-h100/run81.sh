#!/bin/bash
# Run 81 (fifteenth session): where globe.pool_decode's time goes, by doing work twice. An
# experiment binary (the working tree with run81.patch) whose BISECTOR_DECODE_EXPERIMENT=E repeats
# parts of the decode with results never used, so the refinement stays the same (the bridge view
# byte for byte the same with E = 7, lavapipe): 1 the error sample, 2 the vertex samples (at a
# point one map unit over: the same tile, warm caches), 4 the vertices' tile records. Ship path at
# 2 px, 1920x1080, every pass timed, two rounds of the experiments named (E = 0, 1, 2, 4, 7 in run 81;
# run81b.sh: 0, 8 the positions, 16 the cull and projections).
# Usage (from the repository root on the device machine): bash run81.sh [RUN [EXPERIMENTS]].
RUN=${1:-run81}
EXPERIMENTS=${2:-"0 1 2 4 7"}
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
/tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for e in $EXPERIMENTS; do
    echo "== E=$e round $round"
    BISECTOR_DECODE_EXPERIMENT=$e /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json /tmp/e$e-$round.json 2>&1 | grep -E "globe.pool_decode|leaves" | cut -c1-100
  done
done
} > $OUT/$RUN-log.txt 2>&1
cat $OUT/$RUN-log.txt
