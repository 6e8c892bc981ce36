#!/bin/bash
# Run peers-r6 (fourteenth session): the cbt rows again after peers-r5's D = 25 reduction read
# 0.075 ms (kernel cbt: 0.021), with the binaries of fe2481f (kernel cbt warms up with whole
# iterations for 300 ms): `kernel cbt` at D = 25 with 5 and 300 iterations, then the peers' cbt rows.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/peers.xz > /tmp/peers; chmod +x /tmp/peers
xz -dc .devmain/new.xz > /tmp/new; chmod +x /tmp/new
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/new kernel cbt --max-depth 25 --fill 1 --iterations 5
/tmp/new kernel cbt --max-depth 25 --fill 1 --iterations 300
scripts/peers --bin /tmp/peers --only cbt --json $OUT/peers-r6.json
echo "exit $?"
} > $OUT/peers-r6-log.txt 2>&1
cat $OUT/peers-r6-log.txt
