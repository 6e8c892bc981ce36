#!/bin/bash
# Run 110 (eighteenth session, issue 15, kind nvidia-h100-x1): the session's final renderer (2580cc6) on its three
# globe paths, timed by their bounds, two rounds each: the ship path at 2 px (300 frames), the
# Taiwan descent (2040 frames) and the descent to 2 m (globe-taiwan-descent-2m.json, 2520 frames),
# 1920x1080, --cache-tiles 2048, --warmup 600.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  /tmp/new bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/ship2-$round.json > /dev/null 2>&1
  /tmp/new bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/descent-$round.json > /dev/null 2>&1
  /tmp/new bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/descent2m-$round.json > /dev/null 2>&1
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run110-log.txt 2>&1
tar -czf $OUT/run110-json.tar.gz -C $J .
tail -c 3000 $OUT/run110-log.txt
