#!/bin/bash
# Run 89 (sixteenth session): variants of globe.pool_decode in one experiment binary
# (run89.patch: BISECTOR_DECODE_VARIANT=V, an override; bridge view byte for byte the same in
# each): bit 1 loads the leaf's id before the first barrier, bit 2 takes the data's error sample
# before the vertices' tile records, bit 4 keeps the vertices from the first phase (no reload).
# Ship path at 2 px, two rounds, every pass timed and timed by its bounds; registers from
# pipeline-stats. Usage: bash run89.sh (from the repository root on the device machine).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
J=/tmp/json89; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
/tmp/new bench $P --json /tmp/warm.json > /dev/null 2>&1
for V in 0 1 2 3 4 6; do
  mkdir -p /tmp/dump$V
  # (the dump below failed in run 89: $P already holds --frames, so this bench refused its arguments)
  BISECTOR_DUMP_PIPELINES=/tmp/dump$V BISECTOR_DECODE_VARIANT=$V /tmp/new bench $P --frames 2 --warmup 1 --json /tmp/d.json > /dev/null 2>&1
  mkdir -p /tmp/dv$V; cp /tmp/dump$V/globe.pool_decode.decode.* /tmp/dv$V/
  echo "== variant $V registers"; ./.devmain/pstats-bin /tmp/dv$V | grep decode | sed 's/| Binary Size=[0-9]* | Stack Size=0 | Local Memory Size=[0-9]* //'
done
for round in 1 2; do
  for V in 0 1 2 3 4 6; do
    BISECTOR_DECODE_VARIANT=$V /tmp/new bench $P --json $J/v$V-timed-$round.json > /dev/null 2>&1
    BISECTOR_DECODE_VARIANT=$V /tmp/new bench $P --pass-timing off --json $J/v$V-off-$round.json > /dev/null 2>&1
  done
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
} > $OUT/run89-log.txt 2>&1
tar -czf $OUT/run89-json.tar.gz -C $J .
tail -c 5000 $OUT/run89-log.txt
