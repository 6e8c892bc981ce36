#!/bin/bash
# Ninth session: the detail's error as an estimate (0.35 of the octaves' sum), a throwaway warm-up bench first.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
$B bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
echo "== Taiwan descent"
$B bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/descent.json 2>&1 | grep -E "globe.hzb|raster\.|shade|frame total|^leaves" | cut -c1-120
echo "== ship path 2 px"
$B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/ship2.json 2>&1 | grep -E "globe.hzb|raster\.|shade|frame total" | cut -c1-120
echo "== ship path 1 px"
$B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --json $J/ship1.json 2>&1 | grep -E "globe.hzb|raster\.|shade|frame total" | cut -c1-120
for f in $J/descent.json $J/ship2.json $J/ship1.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run34-log.txt 2>&1
tar -czf $OUT/run34-json.tar.gz -C $J .
tail -c 6000 $OUT/run34-log.txt
