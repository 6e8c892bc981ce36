#!/bin/bash
# cbt-r6 (issue 19 item 4): the one-pass CBT reduction with 2^17 bitfield bits a workgroup
# (ONE_WIDE), prev (main's binary) against the branch reduce25b's binary:
#   wide   = default of the new binary (BISECTOR_ONE_WIDE_MIN_DEPTH unset: wide from D = 17)
#   narrow = BISECTOR_ONE_WIDE_MIN_DEPTH=26 (2^16 bits a workgroup, the refactored code of main's layout)
#   wide4  = wide + BISECTOR_ONE_TAIL4=1 (the tail takes four workgroup sums a thread)
# then scripts/peers --only tile-table,cbt.
R=.devmain/r20
xz -dc $R/prev.xz > /tmp/prev; xz -dc $R/new.xz > /tmp/new; xz -dc $R/peers.xz > /tmp/peers; chmod +x /tmp/prev /tmp/new /tmp/peers
L=$OUT/cbt-r6-log.txt
run() { # label binary env args...
  local label=$1 bin=$2 e=$3; shift 3
  echo "== $label: $e $bin kernel cbt --iterations 300 $*"
  env $e timeout 40 $bin kernel cbt --iterations 300 "$@" 2>&1 | grep -E "verified|cbt.reduce|decode_words|rror" | sed 's/^.*verified/verified/'
}
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
echo "== warm-up (untimed)"
/tmp/prev kernel cbt --max-depth 25 --fill 1 --iterations 1500 2>&1 | grep -E "verified" | sed 's/^.*verified/verified/'
nvidia-smi --query-gpu=clocks.sm --format=csv
for rep in 1 2; do
  for c in "25 1" "25 0.25" "20 1" "17 0.25"; do
    set -- $c
    if (( SECONDS > 175 )); then echo "== skipped rep $rep D=$1 fill $2 (time)"; continue; fi
    run prev /tmp/prev X=0 --max-depth $1 --fill $2
    run wide /tmp/new X=0 --max-depth $1 --fill $2
    run narrow /tmp/new BISECTOR_ONE_WIDE_MIN_DEPTH=26 --max-depth $1 --fill $2
    run wide4 /tmp/new BISECTOR_ONE_TAIL4=1 --max-depth $1 --fill $2
  done
done
nvidia-smi --query-gpu=name,clocks.sm --format=csv
echo "== cbt done at ${SECONDS} s"
} 2>&1 | tee $L
P=$OUT/peers-r3-log.txt
T=$((345 - SECONDS)); (( T > 150 )) && T=150
echo "== scripts/peers --bin /tmp/peers --only tile-table,cbt --json \$OUT/peers.json (timeout $T s, started at ${SECONDS} s)" > $P
python3 -c "import scipy, numpy; print('scipy', scipy.__version__, 'numpy', numpy.__version__)" >> $P 2>&1
timeout $T scripts/peers --bin /tmp/peers --only tile-table,cbt --json $OUT/peers.json >> $P 2>&1
echo "== peers exit $? at ${SECONDS} s" >> $P
tail -c 5000 $P
