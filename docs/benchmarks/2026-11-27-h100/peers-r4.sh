#!/bin/bash
# Run peers-r4 (fourteenth session): the tile tables beside their twins again, with the peers
# binary of e372a87 (each sharded twin's values are the keys' ranks in their shard, so the packed
# twin's 16 shards hold them; peers-r3's two packed insert rows could not).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/peers.xz > /tmp/peers; chmod +x /tmp/peers
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/peers-r4-log.txt
scripts/peers --bin /tmp/peers --only tile-table --json $OUT/peers-r4.json >> $OUT/peers-r4-log.txt 2>&1
echo "exit $?" >> $OUT/peers-r4-log.txt
cat $OUT/peers-r4-log.txt
