#!/bin/bash
# Run 109 (eighteenth session, issue 15, kind nvidia-h100-x1): prev = 9b370a4, new = the near-edge
# histogram in a pass of its own after the decode (globe.pool_near_edges, recorded by
# LebScene::record_diagnostics after the span of the update, reduction and decode), the decode
# without it (run109.patch). Two rounds alternating: ship path at 2 px with every pass timed, then
# ship and descent timed by their bounds (--pass-timing off).
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
} > $OUT/run109-log.txt 2>&1
tar -czf $OUT/run109-json.tar.gz -C $J .
tail -c 5000 $OUT/run109-log.txt
