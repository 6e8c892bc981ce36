#!/bin/bash
# Run 127 (twentieth session, issue 15, kind nvidia-h200; an experiment, not merged): the error
# criterion's floor MIN_SPLIT_PX (a triangle whose hypotenuse projects under it does not split) at
# 2 px (the session's last renderer), 1 px and 0.5 px, on the moved ship path at 1 and 2 px: what
# `near_edge_m` (issue 15: a 2 m median) costs in leaves, span and capped leaves.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/final.xz > /tmp/floor2; xz -dc .devmain/floor1.0.xz > /tmp/floor1; xz -dc .devmain/floor0.5.xz > /tmp/floor05
chmod +x /tmp/floor2 /tmp/floor1 /tmp/floor05
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
S=assets/paths/globe-taiwan-coast-ship.json
{
for b in floor2 floor1 floor05; do
  for px in 2 1; do
    /tmp/$b bench $P --path $S --frames 300 --pixel-error $px --json /tmp/$b-$px.json > /dev/null 2>&1
    echo -n "$b, --pixel-error $px: "; python3 docs/benchmarks/nondraw.py /tmp/$b-$px.json
    /tmp/$b shot --terrain $E --camera $S --size 1920x1080 --cache-tiles 2048 --pixel-error $px --out /tmp/$b-$px.png --json /tmp/$b-$px-shot.json > /dev/null 2>&1
    python3 -c "import json;d=json.load(open('/tmp/$b-$px-shot.json'));print('   shot:',{k:d.get(k) for k in ['leaves','capped_leaves','max_depth_reached','near_edge_m']})"
  done
done
} > $OUT/run127-log.txt 2>&1
cat $OUT/run127-log.txt
