#!/bin/bash
# Run 104 (eighteenth session, issue 15, kind nvidia-h100-x1): globe.pool_decode in pool.order's
# dispatch (globe_pool_order_decode.wgsl). prev = 29454e0 (the seventeenth session's final
# binary), new = the change. ab-off.sh (each pass timed, then timed by the bounds alone), then
# every compute pipeline of the new binary's ship bench with its register count
# (crates/pipeline-stats, carried as .devmain/pstats-bin).
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run104
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
BISECTOR_DUMP_PIPELINES=/tmp/dump104 /tmp/new bench --terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 2 \
  --path assets/paths/globe-taiwan-coast-ship.json --frames 2 --pixel-error 2 --json /tmp/d104.json > /dev/null 2>&1
./.devmain/pstats-bin /tmp/dump104 | sed 's/| Binary Size=[0-9]* | Stack Size=0 | Local Memory Size=[0-9]* //' | grep -E "decode|order" > $OUT/run104-registers.txt 2>&1
cat $OUT/run104-registers.txt
