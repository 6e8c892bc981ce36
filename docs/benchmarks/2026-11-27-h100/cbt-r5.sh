#!/bin/bash
# cbt-r5 (issue 19 item 4, fourteenth session): the one-pass CBT reduction, prev (b42ac38, main) against
# the branch reduce25's binary with BISECTOR_REDUCE_EXPERIMENT=E (override ONE_EXPERIMENT):
#   bit 0: D-1 through workgroup memory, stored a vec4 a thread (a warp's stores contiguous)
#   bit 1: D-2 the same (after the second barrier)
#   bit 2: the tail takes four workgroup sums a thread (levels 1 and 2 without a barrier)
#   every E: D-4..D-7 assembled word by word from each thread's bits in workgroup memory, a warp's stores contiguous
# then scripts/peers at its default sizes.
R=.devmain/r19
xz -dc $R/prev.xz > /tmp/prev; xz -dc $R/new.xz > /tmp/new; xz -dc $R/peers.xz > /tmp/peers; chmod +x /tmp/prev /tmp/new /tmp/peers
L=$OUT/cbt-r5-log.txt
run() { # label binary E args...
  local label=$1 bin=$2 e=$3; shift 3
  echo "== $label: BISECTOR_REDUCE_EXPERIMENT=$e $bin kernel cbt --iterations 300 $*"
  BISECTOR_REDUCE_EXPERIMENT=$e timeout 40 $bin kernel cbt --iterations 300 "$@" 2>&1 | grep -E "verified|cbt.reduce|decode_words" | sed 's/^.*verified/verified/'
}
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
echo "== warm-up (untimed)"
/tmp/prev kernel cbt --max-depth 25 --fill 1 --iterations 1500 2>&1 | grep -E "verified" | sed 's/^.*verified/verified/'
nvidia-smi --query-gpu=clocks.sm --format=csv
for rep in 1 2; do
  for c in "25 1" "25 0.25" "20 1" "17 0.25"; do
    set -- $c
    if (( SECONDS > 150 )); then echo "== skipped rep $rep D=$1 fill $2 (time)"; continue; fi
    run prev /tmp/prev - --max-depth $1 --fill $2
    for e in 3 7 0 1 2; do
      run E$e /tmp/new $e --max-depth $1 --fill $2
    done
  done
done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
echo "== cbt done at ${SECONDS} s"
} 2>&1 | tee $L
P=$OUT/peers-r2-log.txt
echo "== scripts/peers --bin /tmp/peers --json \$OUT/peers.json (timeout $((410 - SECONDS)) s)" > $P
python3 -c "import scipy, numpy; print('scipy', scipy.__version__, 'numpy', numpy.__version__)" >> $P 2>&1
timeout $((410 - SECONDS)) scripts/peers --bin /tmp/peers --json $OUT/peers.json >> $P 2>&1
echo "== peers exit $? at ${SECONDS} s" >> $P
tail -c 6000 $P
