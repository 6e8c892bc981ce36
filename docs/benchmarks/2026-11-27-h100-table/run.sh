#!/bin/bash
# tile-table, issue 19 item 3: every variant (linear, bucketed, packed) at 2^24 slots in one
# process (the default --variant all), binary of branch tile-table-packed. Clocks logged beside.
xz -dc .devmain/table-new.xz > /tmp/new; chmod +x /tmp/new
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv -lms 250 > $OUT/clocks.csv 2>&1 &
CLK=$!
date +%T
timeout 188 /tmp/new kernel tile-table --capacity-log2 24 --seed 7 --json $OUT/all.json 2>&1 | grep -v XDG | tee $OUT/all.txt
echo "rc ${PIPESTATUS[0]}"; date +%T
kill $CLK
