#!/bin/bash
# Run 59: shift-and, prev = run 57's new, new = the masks of 12 bytes loaded together before their steps, in
# three vectors (run 58 kept them in an array, which went to local memory)
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
A="kernel shift-and --count 1000 --max-states 32 --text-bytes 67108864 --iterations 5 --seed 1 --count-only"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
for run in "prev 0" "new 0" "new 32768"; do
  set -- $run
  echo "== $1 shift-and 1000 patterns x 64 MiB, count only, --chunk $2"
  timeout 200 /tmp/$1 $A --chunk $2 --json $J/$1-shift-and-chunk$2.json 2>&1 | grep -v XDG | tail -3
done
} > $OUT/run59-log.txt 2>&1
tar -czf $OUT/run59-json.tar.gz -C $J .
tail -c 6000 $OUT/run59-log.txt
