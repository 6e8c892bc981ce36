#!/bin/bash
# Tenth session, run 35: A/B on one machine. base = 09f25a6 (run 34's code); new = the merge
# frame's parents classified by the even child alone, the decoded vertices reused under motion up
# to a quarter of the altitude, and globe.pool_heights (the vertices' heights in a pass of their
# own); the per-pass figures tell the three apart. A throwaway warm-up bench first (the GPU starts
# at low clocks).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in base new; do gunzip -c .devmain/$b.gz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
/tmp/base bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
for b in base new; do
  echo "== $b round $round"
  /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
done
done
/tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json $J/new-ship1.json > /dev/null 2>&1
/tmp/base bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json $J/base-ship1.json > /dev/null 2>&1
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run35-log.txt 2>&1
tar -czf $OUT/run35-json.tar.gz -C $J .
tail -c 5000 $OUT/run35-log.txt
