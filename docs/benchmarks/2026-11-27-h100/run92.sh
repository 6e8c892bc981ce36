#!/bin/bash
# Run 92 (sixteenth session, on an H100: kind nvidia-h100-x1): the session's renderer against the
# one it started with. prev = 0a0545b, new = 138b5ea. Then every compute pipeline of the new
# binary's ship bench with its register count (crates/pipeline-stats, carried as
# .devmain/pstats-bin).
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run92
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
BISECTOR_DUMP_PIPELINES=/tmp/dump92 /tmp/new bench --terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 2 \
  --path assets/paths/globe-taiwan-coast-ship.json --frames 2 --pixel-error 2 --raster compute --json /tmp/d92.json > /dev/null 2>&1
./.devmain/pstats-bin /tmp/dump92 | sed 's/| Binary Size=[0-9]* | Stack Size=0 | Local Memory Size=[0-9]* //' > $OUT/run92-registers.txt 2>&1
cat $OUT/run92-registers.txt
