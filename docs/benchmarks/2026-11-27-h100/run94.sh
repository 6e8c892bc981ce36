#!/bin/bash
# Run 94 (seventeenth session): wgpu's indirect-call validation. In release builds wgpu 30 turns
# InstanceFlags::VALIDATION_INDIRECT_CALL on: before every dispatch_workgroups_indirect it records
# a one-thread dispatch that copies the arguments (clamped to the device's limits) into a buffer of
# its own, with a barrier either side. One binary (99e8e6c, plus an experiment switch for the CBT
# kernel below), run with and without WGPU_VALIDATION_INDIRECT_CALL=0, both timed by their bounds
# (--pass-timing off), two rounds, then one round with every pass timed.
# Then issue 19 item 4: `kernel cbt --max-depth 25` as it is (the reduction, then the arguments and
# both decodes: 256 MiB of leaf ids written each iteration) and with BISECTOR_CBT_REDUCE_ONLY=1
# (the experiment switch: after the first, verified, iteration only the reduction runs).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
/tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json /tmp/warm2.json > /dev/null 2>&1
for round in 1 2; do
  for v in on off; do
    if [ $v = off ]; then export WGPU_VALIDATION_INDIRECT_CALL=0; else unset WGPU_VALIDATION_INDIRECT_CALL; fi
    /tmp/exp bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-off-ship2-$round.json > /dev/null 2>&1
    /tmp/exp bench $P --pass-timing off --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$v-off-descent-$round.json > /dev/null 2>&1
  done
done
for v in on off; do
  if [ $v = off ]; then export WGPU_VALIDATION_INDIRECT_CALL=0; else unset WGPU_VALIDATION_INDIRECT_CALL; fi
  echo "== $v, every pass timed"
  /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$v-ship2-timed.json 2>&1 | grep -E "pool\.|globe.pool|cbt|frame total" | cut -c1-100
  /tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 2040 --json $J/$v-descent-timed.json 2>&1 | grep -E "frame total" | cut -c1-100
done
unset WGPU_VALIDATION_INDIRECT_CALL
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
echo "== kernel cbt"
/tmp/exp kernel cbt --max-depth 25 --fill 1 --iterations 1500 > /dev/null 2>&1
for round in 1 2; do
  for d in "25 --fill 1" "25 --fill 0.25" "20 --fill 1"; do
    echo "-- D=$d, whole loop"; /tmp/exp kernel cbt --iterations 300 --max-depth $d 2>&1 | grep -E "verified|cbt.reduce"
    echo "-- D=$d, reduction only"; BISECTOR_CBT_REDUCE_ONLY=1 /tmp/exp kernel cbt --iterations 300 --max-depth $d 2>&1 | grep -E "verified|cbt.reduce"
  done
done
} > $OUT/run94-log.txt 2>&1
tar -czf $OUT/run94-json.tar.gz -C $J .
tail -c 9000 $OUT/run94-log.txt
