#!/bin/bash
# Run 115 (nineteenth session, issue 15, kind nvidia-h200): 1) where globe.pool_decode's time goes
# after 921cf55, with run115.patch's experiment binary (BISECTOR_DECODE_EXPERIMENT=E does part of
# the decode twice, the second result unused: 1 the vertices' tile records, 2 the workgroup
# statistics' atomics, 8 the data error's box), the ship path at 2 px with every pass timed, two
# rounds. 2) 921cf55 (new) on the Taiwan descent and the descent to 2 m, timed by their bounds,
# and the descent to 2 m at --pixel-error 2 (the ship benchmark's density).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in new exp; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for e in 0 1 2 8; do
    echo "== experiment $e round $round"
    BISECTOR_DECODE_EXPERIMENT=$e /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/exp$e-ship2-$round.json 2>&1 | grep -E "globe.pool_decode|frame total" | cut -c1-100
  done
done
for round in 1 2; do
  /tmp/new bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/descent-$round.json > /dev/null 2>&1
  /tmp/new bench $P --pass-timing off --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/descent2m-$round.json > /dev/null 2>&1
  /tmp/new bench $P --pass-timing off --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --pixel-error 2 --json $J/descent2m-px2-$round.json > /dev/null 2>&1
done
for f in $J/descent*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run115-log.txt 2>&1
tar -czf $OUT/run115-json.tar.gz -C $J .
tail -c 5000 $OUT/run115-log.txt
