#!/bin/bash
# Run 121 (nineteenth session, kind nvidia-h200): bench's warm-up floor. warm = the session's
# renderer with a second of frames at the first pose after convergence (bench::run::WARM_UP_S);
# old = 921cf55's renderer (other shaders, no floor). On a fresh machine the first process of
# each binary has the driver compile its pipelines first. Ship path at 2 px, timed by its bounds:
# warm twice, old twice, warm once more.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/warm.xz > /tmp/warm; xz -dc .devmain/new.xz > /tmp/old; chmod +x /tmp/warm /tmp/old
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
n=0
for b in warm warm old old warm; do
  n=$((n+1)); s=$(date +%s%N)
  /tmp/$b bench $P --json $J/$n-$b.json > /dev/null 2>&1
  echo "process $n ($b): $(( ($(date +%s%N) - s) / 1000000 )) ms"
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run121-log.txt 2>&1
cat $OUT/run121-log.txt
