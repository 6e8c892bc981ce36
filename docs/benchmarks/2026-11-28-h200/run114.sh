#!/bin/bash
# Run 114 (nineteenth session, issue 15, kind nvidia-h200: the first run on an H200): prev =
# 657129e (the eighteenth session's final renderer), new = each leaf records each distinct wanted
# tile once in globe.pool_decode (the centre's and the data error's tiles are mostly a vertex's:
# no second lookup, no second atomic load). Two rounds alternating: the ship path at 2 px with
# every pass timed, then timed by its bounds. Then `kernel cbt` at D = 25 (fill 1 and 0.25) and
# D = 17 (fill 0.25), the H200's baseline for issue 19 item 4.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,memory.total --format=csv
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for b in prev new; do
    echo "== $b round $round"
    /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-off-ship2-$round.json > /dev/null 2>&1
  done
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
for c in "25 1" "25 0.25" "17 0.25"; do
  set -- $c
  echo "== kernel cbt D=$1 fill $2"
  timeout 90 /tmp/new kernel cbt --max-depth $1 --fill $2 --iterations 300 2>&1 | grep -E "cbt.reduce|verified|decode"
done
} > $OUT/run114-log.txt 2>&1
tar -czf $OUT/run114-json.tar.gz -C $J .
tail -c 6000 $OUT/run114-log.txt
