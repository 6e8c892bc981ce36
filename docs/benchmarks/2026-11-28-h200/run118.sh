#!/bin/bash
# Run 118 (nineteenth session, issue 15, kind nvidia-h200): prev = 921cf55's renderer, new = the
# data's error from fine blocks of 4 cells for boxes under 8 cells (the tile error layer's fine
# level). The ship path at 2 px, alternating, three rounds timed by their bounds and one with
# every pass timed; the descent to 2 m (default and --pixel-error 2) and the Taiwan descent, one
# round each, timed by their bounds.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/prev.xz > /tmp/prev; xz -dc .devmain/exp.xz > /tmp/new; chmod +x /tmp/prev /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
/tmp/prev bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json /tmp/warm2.json > /dev/null 2>&1
for round in 1 2 3; do
  for b in prev new; do
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-off-ship2-$round.json > /dev/null 2>&1
  done
done
for b in prev new; do
  echo "== $b, every pass timed"
  /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
done
for b in prev new; do
  /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/$b-descent2m.json > /dev/null 2>&1
  /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --pixel-error 2 --json $J/$b-descent2m-px2.json > /dev/null 2>&1
  /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent.json > /dev/null 2>&1
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run118-log.txt 2>&1
tar -czf $OUT/run118-json.tar.gz -C $J .
tail -c 6000 $OUT/run118-log.txt
