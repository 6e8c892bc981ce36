#!/bin/bash
# Run 117 (nineteenth session, issues 15 and 19, kind nvidia-h200): 1) issue 19 item 3 on the
# H200: `kernel tile-table --capacity-log2 24 --seed 7` (every layout, the target's command).
# 2) issue 15: the descent to 2 m with every pass timed (the session's renderer, 921cf55), for
# the passes' split at a million leaves.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
timeout 300 /tmp/new kernel tile-table --capacity-log2 24 --seed 7 --json $J/tile-table.json
echo "tile-table exit $?"
/tmp/new bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/descent2m-passes.json 2>&1 | grep -E "pool\.|globe.pool|cbt|frame total" | cut -c1-100
python3 docs/benchmarks/nondraw.py $J/descent2m-passes.json
} > $OUT/run117-log.txt 2>&1
tar -czf $OUT/run117-json.tar.gz -C $J .
tail -c 8000 $OUT/run117-log.txt
