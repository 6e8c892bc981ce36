#!/bin/bash
# Run 124 (twentieth session, issue 15, kind nvidia-h200): prev = run 123's new renderer, new =
# the near-edge histogram through workgroup bins (one global atomic per non-empty bin instead of
# five per near leaf). The ship path (moved, 1.8 km off the coast) at 2 px, three rounds
# alternating, and at 1 px, timed by their bounds; the descents once each.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/sea.xz > /tmp/prev; xz -dc .devmain/agg.xz > /tmp/new; chmod +x /tmp/prev /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
S=assets/paths/globe-taiwan-coast-ship.json
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for round in 1 2 3; do
  for b in prev new; do
    /tmp/$b bench $P --path $S --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json > /dev/null 2>&1
  done
done
for b in prev new; do
  /tmp/$b bench $P --path $S --frames 300 --json $J/$b-ship1.json > /dev/null 2>&1
done
/tmp/new bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/new-descent2m.json > /dev/null 2>&1
/tmp/new bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --pixel-error 2 --json $J/new-descent2m-px2.json > /dev/null 2>&1
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/new-descent.json > /dev/null 2>&1
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run124-log.txt 2>&1
tar -cJf $OUT/run124-json.tar.xz -C $J .
tail -c 5000 $OUT/run124-log.txt
