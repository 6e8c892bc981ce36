#!/bin/bash
# Run 130 (twenty-first session, issue 15, kind nvidia-h200): the descents with a pool of 2^21
# slots against the default 2^20 (head = 5fdd814): how much pool the descent to 2 m wants at 1 and
# 2 px, and what the larger pool costs in span.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/head.xz > /tmp/head; chmod +x /tmp/head
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
D=assets/paths/globe-taiwan-descent-2m.json
{
for slots in 1048576 2097152; do
  for px in 1 2; do
    /tmp/head bench $P --path $D --frames 2520 --pixel-error $px --pool-slots $slots --json $J/descent2m-px$px-slots$slots.json > /dev/null 2>&1
  done
done
/tmp/head bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pool-slots 2097152 --json $J/ship1-slots2097152.json > /dev/null 2>&1
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run130-log.txt 2>&1
cat $OUT/run130-log.txt
