#!/bin/bash
# Run 69 (thirteenth session): where globe.pool_decode's time goes on the ship path at 2 px. An
# experiment binary (the working tree at cc06f59 plus a DECODE_EXPERIMENT override, set from
# BISECTOR_DECODE_EXPERIMENT; not merged) leaves parts of the decode out: bit 0 the heights'
# texels, bit 1 the detail, bit 2 the tile requests, bit 3 the error sample, bit 4 the near edges.
# The refinement changes with some of them: compare time per leaf.
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
done
echo "== detail off"
/tmp/exp bench $P --detail off --json $J/off.json 2>&1 | grep -E "globe.pool_decode" | cut -c1-100
python3 docs/benchmarks/nondraw.py $J/off.json
} > $OUT/run69-log.txt 2>&1
tail -c 5000 $OUT/run69-log.txt
