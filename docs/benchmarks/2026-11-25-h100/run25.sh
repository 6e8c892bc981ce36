#!/bin/bash
# Seventh session, after raster.wide (large triangles binned per 32x32 tile and rasterised in compute;
# only near-plane crossers still go to the hardware), binary of main at 696b744
# the same frames as runs 21, 23 and 24.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
echo "== ship path 2 px, default raster"
$B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/ship.json 2>&1 | grep -v XDG | grep -E "raster\.|shade|frame total|^leaves" | cut -c1-120
echo "== Taiwan descent, default raster"
$B bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/descent.json 2>&1 | grep -v XDG | grep -E "raster\.|shade|frame total|^leaves" | cut -c1-120
echo "== low flyover, default raster"
$B bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --json $J/flyover.json 2>&1 | grep -v XDG | grep -E "^raster:|raster\.|shade|frame total|^leaves" | cut -c1-120
} > $OUT/run25-log.txt 2>&1
tar -czf $OUT/run25-json.tar.gz -C $J .
cat $OUT/run25-log.txt
