#!/bin/bash
# Eleventh session, run 52, on the H100: prev (cf2020d) against new (run 51's, and the near-edge
# histogram's decode testing the centroid's column against the distance before it asks the tile
# cache), two rounds each, after throwaway warm-up benches.
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
} > $OUT/run52-log.txt 2>&1
tar -czf $OUT/run52-json.tar.gz -C $J .
tail -c 3500 $OUT/run52-log.txt
