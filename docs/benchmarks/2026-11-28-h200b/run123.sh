#!/bin/bash
# Run 123 (twentieth session, issue 15, kind nvidia-h200): prev = e4241f1's renderer, new = the
# vertical sine (run 122) + the sea rule's 3.5 m band (no striped "land" of resampling noise off
# the Qingshui cliffs) on the ship path moved to 1.8 km off the real coast (121.675E; it was
# 121.695E, 3.8 km off, with only the noise strip within 3 km) and the descent to 2 m ending there.
# Both binaries read the same (new) paths. The ship path at 2 px (three rounds, alternating) and at
# 1 px, the descents, timed by their bounds; then the bridge view's shot --json at 1080p, 1 and 2 px.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/head.xz > /tmp/prev; xz -dc .devmain/sea.xz > /tmp/new; chmod +x /tmp/prev /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
S=assets/paths/globe-taiwan-coast-ship.json
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for round in 1 2 3; do
  for b in prev new; do
    /tmp/$b bench $P --path $S --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json > /dev/null 2>&1
  done
done
for b in prev new; do
  /tmp/$b bench $P --path $S --frames 300 --json $J/$b-ship1.json > /dev/null 2>&1
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/$b-descent2m.json > /dev/null 2>&1
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --pixel-error 2 --json $J/$b-descent2m-px2.json > /dev/null 2>&1
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$b-descent.json > /dev/null 2>&1
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
for b in prev new; do
  for px in 1 2; do
    /tmp/$b shot --terrain $E --camera $S --size 1920x1080 --cache-tiles 2048 --pixel-error $px --out /tmp/$b-bridge-$px.png --json /tmp/$b-bridge-$px.json > /dev/null 2>&1
    python3 -c "import json,sys;d=json.load(open('/tmp/$b-bridge-$px.json'));print('$b bridge 1080p $px px:',{k:d.get(k) for k in ['leaves','capped_leaves','max_depth_reached','near_edge_m']})"
  done
done
} > $OUT/run123-log.txt 2>&1
tar -cJf $OUT/run123-json.tar.xz -C $J .
cp /tmp/new-bridge-1.png $OUT/run123-new-bridge-1.png
tail -c 6000 $OUT/run123-log.txt
