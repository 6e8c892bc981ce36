#!/bin/bash
# cbt-reduce-one hand-over A/B (issue 19 item 4, idea d), one binary (branch cbt-reduce-tail2):
#   v0 = BISECTOR_ONE_HANDOVER=0: main's hand-over (sum, storage barrier, count; storage barrier before the tail)
#   v1 = BISECTOR_ONE_HANDOVER=1: sum + count right after the workgroup's last barrier, before its packing; no storage barriers
#   v2 = BISECTOR_ONE_HANDOVER=2: sum + count after the packing; no storage barriers
# (v1, v2: the tail waits until each sum, published as sum + 1, is non-zero)
xz -dc .devmain/tail2-new.xz > /tmp/new; chmod +x /tmp/new
L=$OUT/cbt-tail2-log.txt
run() { # label env args...
  local label=$1 env=$2; shift 2
  echo "== $label: $env $*"
  env $env timeout 30 /tmp/new kernel cbt --iterations 300 "$@" 2>&1 | grep -E "verified|cbt.reduce" | sed 's/^.*verified/verified/'
}
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for c in "25 1" "20 1" "17 0.25" "25 0.25" "25 1"; do
  set -- $c
  for v in 0 1 2; do
    run v$v BISECTOR_ONE_HANDOVER=$v --max-depth $1 --fill $2 --reduce-path one
  done
done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
} 2>&1 | tee $L
