#!/bin/bash
# Run 111 (eighteenth session, issue 15, kind nvidia-h100-x1): prev = 98c3417 (the session's
# renderer so far), new = globe.pool_decode runs the pool's CBT reduction in its dispatch
# (`decode_reduce`, run111.patch), so that pool.order runs alone, without the reduction's
# registers. Two rounds alternating: ship path at 2 px with every pass timed, then ship and descent
# timed by their bounds (--pass-timing off); then the register counts of new's decode and order
# pipelines (crates/pipeline-stats, .devmain/pstats-bin).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for b in prev new; do
    echo "== $b round $round"
    /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-off-ship2-$round.json > /dev/null 2>&1
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-off-descent-$round.json > /dev/null 2>&1
  done
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
BISECTOR_DUMP_PIPELINES=/tmp/dump111 /tmp/new bench --terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 2 \
  --path assets/paths/globe-taiwan-coast-ship.json --frames 2 --pixel-error 2 --json /tmp/d111.json > /dev/null 2>&1
./.devmain/pstats-bin /tmp/dump111 | sed 's/| Binary Size=[0-9]* | Stack Size=0 | Local Memory Size=[0-9]* //' | grep -E "decode|order"
} > $OUT/run111-log.txt 2>&1
tar -czf $OUT/run111-json.tar.gz -C $J .
tail -c 5000 $OUT/run111-log.txt
