#!/bin/bash
# Run 116 (nineteenth session, issues 15 and 19, kind nvidia-h200): the session's figures on the
# H200. 1) The ship path at 2 px, prev (657129e, the eighteenth session's renderer) and new (the
# session's, 921cf55's renderer) alternating, timed by their bounds, three rounds; then new with
# every pass timed. 2) `kernel cbt` (issue 19 item 4) at D = 25 fill 1 and 0.25, three processes
# each, and D = 20 fill 1 and D = 17 fill 0.25 once. 3) scripts/peers (issue 19 item 6), the
# peers example built from the same commit.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new peers; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2 3; do
  for b in prev new; do
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-off-ship2-$round.json > /dev/null 2>&1
  done
done
echo "== new, every pass timed"
/tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/new-ship2.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
for c in "25 1" "25 0.25" "25 1" "25 0.25" "25 1" "25 0.25" "20 1" "17 0.25"; do
  set -- $c
  echo "== kernel cbt D=$1 fill $2"
  timeout 90 /tmp/new kernel cbt --max-depth $1 --fill $2 --iterations 300 2>&1 | grep -E "cbt.reduce|verified|decode"
done
timeout 330 scripts/peers --bin /tmp/peers --json $OUT/run116-peers.json
echo "peers exit $?"
} > $OUT/run116-log.txt 2>&1
tar -czf $OUT/run116-json.tar.gz -C $J .
tail -c 9000 $OUT/run116-log.txt
