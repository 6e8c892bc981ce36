#!/bin/bash
# Tenth session, run 43, on the H100: prev (main at 91274af, this session's pool changes) against
# new (pool.list's deepest-leaf atomicMax once per workgroup instead of once per bitfield word: 32 k
# atomics on one counter every frame with a 2^20-slot pool), two rounds each, after a throwaway
# warm-up bench.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name --format=csv,noheader
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
for b in prev new; do
  echo "== $b round $round"
  /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json 2>&1 | grep -E "pool.list|cbt.reduce|frame total" | cut -c1-100
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent-$round.json 2>&1 | grep -E "pool.list|frame total" | cut -c1-100
done
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run43-log.txt 2>&1
cat $OUT/run43-log.txt
