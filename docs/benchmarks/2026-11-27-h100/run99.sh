#!/bin/bash
# Run 99 (seventeenth session, issue 15): the ship path's update + reduce + decode against the
# number of leaves, to put Benyoub & Dupuy 2024's "< 0.2 ms" beside ours like for like. B24 split
# a bisector when its projected area exceeds 60 px^2 (about a 16 px longest edge for our right
# triangles) in a pool of 128 K slots by default (../shared/DESIGN.md, design notes); the ship
# benchmark runs at --pixel-error 2 (about 440 k leaves, 4-5 px^2 a triangle at 1080p). Binary:
# the session's main (a66ac95's renderer). Every run timed by its bounds, 300 frames, 1920x1080,
# two rounds.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new bench $P --pixel-error 2 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  /tmp/new bench $P --pixel-error 2 --json $J/error2-$round.json > /dev/null 2>&1
  /tmp/new bench $P --pixel-error 4 --json $J/error4-$round.json > /dev/null 2>&1
  /tmp/new bench $P --pixel-error 8 --json $J/error8-$round.json > /dev/null 2>&1
  /tmp/new bench $P --lod edge --pixel-target 16 --json $J/edge16-$round.json > /dev/null 2>&1
  /tmp/new bench $P --lod edge --pixel-target 16 --pool-slots 131072 --json $J/edge16-pool128k-$round.json > /dev/null 2>&1
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run99-log.txt 2>&1
tar -czf $OUT/run99-json.tar.gz -C $J .
tail -c 6000 $OUT/run99-log.txt
