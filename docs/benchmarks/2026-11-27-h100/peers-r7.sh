#!/bin/bash
# Run peers-r7 (fourteenth session): every kernel beside its peer in one run, the default sizes
# (issue 19 item 6), binaries of the commit that set kernels::WARM_UP_MS to 1 s (kernel cbt and
# the tile tables' large sets run untimed that long first); first `kernel cbt` at D = 25 with 5
# iterations, the case peers-r6 timed at idle clocks.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/peers.xz > /tmp/peers; chmod +x /tmp/peers
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new kernel cbt --max-depth 25 --fill 1 --iterations 5
timeout 520 scripts/peers --bin /tmp/peers --json $OUT/peers-r7.json
echo "exit $?"
} > $OUT/peers-r7-log.txt 2>&1
cat $OUT/peers-r7-log.txt
