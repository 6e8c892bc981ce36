#!/bin/bash
# Shift-and on run 59's workload (1,000 patterns x 64 MiB, count only) with binaries prev and new
# (xz-compressed in .devmain/, carried with the Vulkan loader's packages in .gl/) at chunk lengths.
# Usage (from the repository root on the device machine): bash chunks.sh RUN "BINARY CHUNK"...,
# e.g. bash chunks.sh run58 "prev 0" "new 0" "new 32768" (chunk 0: the default); the outputs are
# $OUT/RUN-log.txt and $OUT/RUN-json.tar.gz. Runs 57-59 used it.
RUN=$1
shift
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
A="kernel shift-and --count 1000 --max-states 32 --text-bytes 67108864 --iterations 5 --seed 1 --count-only"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
for run in "$@"; do
  set -- $run
  echo "== $1 shift-and 1000 patterns x 64 MiB, count only, --chunk $2"
  timeout 200 /tmp/$1 $A --chunk $2 --json $J/$1-shift-and-chunk$2.json 2>&1 | grep -v XDG | tail -3
done
} > $OUT/$RUN-log.txt 2>&1
tar -czf $OUT/$RUN-json.tar.gz -C $J .
tail -c 6000 $OUT/$RUN-log.txt
