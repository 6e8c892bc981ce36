#!/bin/bash
# The eleventh session's A/B on the H100 (runs 44-52): binaries prev and new (xz-compressed in
# .devmain/, carried with the Vulkan loader's packages in .gl/), after throwaway warm-up benches
# of the descent and the ship path, then two rounds of each binary alternating: the ship path at
# 2 px (300 frames) and the Taiwan descent (2040 frames) at 1920x1080, with per-frame JSON.
# Usage (from the repository root on the device machine): bash ab.sh RUN, RUN naming the outputs
# $OUT/RUN-log.txt and $OUT/RUN-json.tar.gz. Each runNN.sh says what its two binaries were.
RUN=$1
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
/tmp/prev bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json /tmp/warm2.json > /dev/null 2>&1
for round in 1 2; do
for b in prev new; do
  echo "== $b round $round"
  /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
done
done
for f in $J/*ship*.json $J/*descent*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/$RUN-log.txt 2>&1
tar -czf $OUT/$RUN-json.tar.gz -C $J .
tail -c 3500 $OUT/$RUN-log.txt
