#!/bin/bash
# Run 64: where cbt.reduce's dispatch 0 goes at D = 25 (issue 19 item 4). An experiment binary
# (run64.patch over deeee40, not merged): the override REDUCE_EXPERIMENT, read from the environment
# variable BISECTOR_REDUCE_EXPERIMENT, leaves parts of the shared path out (bit 0: the bitfield
# words' four emits into workgroup memory; 1: the write-out of the assembled words; 2: the D-1
# store; 3: the emits of the levels summed in registers and workgroup memory). Results with parts
# left out are wrong (verified: false); only the times matter.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
for e in 0 1 2 4 8 3 9 15 0; do
  echo "== experiment $e"
  BISECTOR_REDUCE_EXPERIMENT=$e /tmp/new kernel cbt --max-depth 25 --fill 1 --iterations 300 --reduce-path shared 2>&1 | grep -v XDG | grep -E "cbt.reduce"
done
} > $OUT/run64-log.txt 2>&1
cat $OUT/run64-log.txt
