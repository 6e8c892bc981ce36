#!/bin/bash
# cbt-reduce-one tail A/B (issue 19 item 4), one binary (branch cbt-reduce-tail):
#   old   = BISECTOR_ONE_TAIL=0 --reduce-path one (the first tail: 89091da's code)
#   new   = --reduce-path one (one_tail: two sums a thread, one thread a word, plain stores)
#   split = --reduce-path one-split (one_tail in a second dispatch of one workgroup)
xz -dc .devmain/tail-new.xz > /tmp/new; chmod +x /tmp/new
L=$OUT/cbt-tail-log.txt
run() { # label env args...
  local label=$1 env=$2; shift 2
  echo "== $label: $env $*"
  env $env timeout 40 /tmp/new kernel cbt --iterations 300 "$@" 2>&1 | grep -E "verified|cbt.reduce|decode_words" | sed 's/^.*verified/verified/'
}
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for c in "25 1" "20 1" "17 0.25" "25 0.25" "25 1"; do
  set -- $c
  run old BISECTOR_ONE_TAIL=0 --max-depth $1 --fill $2 --reduce-path one
  run new X=1 --max-depth $1 --fill $2 --reduce-path one
  run split X=1 --max-depth $1 --fill $2 --reduce-path one-split
done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
} 2>&1 | tee $L
