#!/bin/bash
# Run 125 (twentieth session, issue 15, kind nvidia-h200): the session's last renderer (f663f63),
# every pass timed, on the moved ship path at 1 and 2 px: where the span goes at 694 k leaves.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/final.xz > /tmp/new; chmod +x /tmp/new
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
S=assets/paths/globe-taiwan-coast-ship.json
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for px in 2 1; do
  echo "== ship path, --pixel-error $px, every pass timed (median, p95, p99, max ms)"
  /tmp/new bench $P --path $S --frames 300 --pixel-error $px --json /tmp/ship$px.json 2>&1 | grep -E "pool\.|globe.pool|cbt\.|frame total|leaves" | cut -c1-100
done
} > $OUT/run125-log.txt 2>&1
cat $OUT/run125-log.txt
