#!/bin/bash
# Tenth session, run 38, on the H100: base (09f25a6, run 34's code) against new (c249bf4: the merge
# frame's parents classified by the even child, the decoded vertices reused under motion up to a
# quarter of the altitude, classify's and mark's atomics added up per workgroup, the decode's
# tile records through workgroup used bits), two rounds each, after a throwaway warm-up bench.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in base new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
/tmp/base bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
for b in base new; do
  echo "== $b round $round"
  /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
  /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json $J/$b-ship1-$round.json > /dev/null 2>&1
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
done
done
for b in base new; do /tmp/$b bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --json $J/$b-flyover.json 2>&1 | grep -E "frame total"; done
for f in $J/*ship*.json $J/*descent*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run38-log.txt 2>&1
tar -czf $OUT/run38-json.tar.gz -C $J .
tail -c 3000 $OUT/run38-log.txt
