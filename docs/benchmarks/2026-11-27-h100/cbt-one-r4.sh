#!/bin/bash
# cbt-reduce-one A/B (issue 19 item 4): r3 = commit 89091da, new = eights of workgroups writing D-17..D-19.
RUN=${1:-r4}
for b in cbt-r3 cbt-new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for round in 1 2; do
for c in "25 1" "20 1" "17 0.25"; do
  set -- $c
  for b in cbt-r3 cbt-new; do
    echo "== round $round D=$1 fill $2 $b"
    timeout 60 /tmp/$b kernel cbt --max-depth $1 --fill $2 --iterations 300 --json $J/$round-$1-$2-$b.json 2>&1 | grep -E "cbt.reduce|verified|decode_words" | grep -o "verified.*\|one path\|median [0-9.]* ms\|alone: .*"
  done
done
done
} > $OUT/$RUN-log.txt 2>&1
tar -czf $OUT/$RUN-json.tar.gz -C $J .
cat $OUT/$RUN-log.txt
