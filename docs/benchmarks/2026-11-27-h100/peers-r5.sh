#!/bin/bash
# Run peers-r5 (fourteenth session): every kernel beside its peer in one run, the default sizes
# (issue 19 item 6), with the peers binary of the session's end (the sharded tile-table peer fixed,
# kernel cbt warmed up before it is timed).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/peers.xz > /tmp/peers; chmod +x /tmp/peers
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $OUT/peers-r5-log.txt
timeout 570 scripts/peers --bin /tmp/peers --json $OUT/peers-r5.json >> $OUT/peers-r5-log.txt 2>&1
echo "exit $?" >> $OUT/peers-r5-log.txt
cat $OUT/peers-r5-log.txt
