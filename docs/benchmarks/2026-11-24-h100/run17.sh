#!/bin/bash
# Sixth session: where the globe draw's time goes on the ship path at 1080p, 2 px error (after
# run 16): the sea, the atmosphere and the detail below the data switched off in turn.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig; gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb; mkdir -p $OUT
for v in "--sea off" "--atmosphere off" "--atmosphere off --sea off" "--atmosphere off --sea off --detail off"; do
  n=$(echo "x $v" | tr -d ' -'); echo "== ship px2 $v"
  /tmp/b bench --terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 $v --json $OUT/ship-px2-$n.json 2>&1 | grep -v XDG | grep -E "pool_draw|atmosphere.sky |frame total|^leaves|rror" | head -5
done
cd $OUT && tar czf run17-json.tar.gz *.json && rm *.json
