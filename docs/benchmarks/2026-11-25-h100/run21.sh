#!/bin/bash
# Seventh session, after merging the globe's compute rasteriser (issue 18) and the peers harness
# (issue 19 item 6): hardware against compute on the globe over the pool (the ship path at 1 and
# 2 px, the Taiwan descent), each converged first (--warmup 600 stops once the pool and the cache
# settle); `info`'s raster line; then scripts/peers at its default sizes.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
gunzip -c .devmain/peers.gz > /tmp/peers; chmod +x /tmp/peers
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
$B info 2>&1 | grep -v XDG | grep -i -A4 "raster"
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
for r in hardware compute; do
  for px in 2 1; do
    echo "== ship path, --pixel-error $px, --raster $r"
    $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error $px --raster $r --json $J/ship-px$px-$r.json 2>&1 | grep -v XDG | grep -E "raster|shade|pool_draw|hzb|pool_decode|sky|frame total|^leaves"
  done
  echo "== Taiwan descent, --raster $r"
  $B bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --raster $r --json $J/descent-$r.json 2>&1 | grep -v XDG | grep -E "raster|shade|pool_draw|hzb|pool_decode|sky|frame total|^leaves"
done
echo "== ship path, --pixel-error 2, compute, --raster-large-px 64 and 8"
for l in 64 8; do
  $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --raster compute --raster-large-px $l --json $J/ship-px2-large$l.json 2>&1 | grep -v XDG | grep -E "raster|shade|frame total"
done
$B shot --terrain $E --camera assets/paths/globe-taiwan-coast-ship.json --size 1920x1080 --cache-tiles 2048 --pixel-error 2 --raster compute --out $OUT/ship-px2-compute.png 2>&1 | grep -v XDG
echo "== peers"
timeout 330 scripts/peers --bin /tmp/peers --json $J/peers.json 2>&1 | tail -45
} > $OUT/run21-log.txt 2>&1
tar -czf $OUT/run21-json.tar.gz -C $J .
tail -c 11000 $OUT/run21-log.txt
