#!/bin/bash
# Run 97 (seventeenth session, issue 19 items 4 and 6): `kernel cbt` with few iterations on a GPU
# that has idled. prev = 190bc97's binary: it checks the heap and the leaf ids against the twin
# right after the first timed iteration (a read-back of up to 256 MiB), so the later iterations
# start after that idle time; new = the same plus the fix: 200 ms of untimed iterations first, and
# the check after every timed pass. Alternating, with 5 s of idle before each run. Then the
# peers' CBT rows (examples/peers of the new code, --only cbt) and the 300-iteration figures.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new peers; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for round in 1 2; do
  for d in "25 --fill 1" "25 --fill 0.25" "17 --fill 0.25"; do
    for b in prev new; do
      sleep 5
      echo "-- round $round, $b, D=$d, 5 iterations"
      /tmp/$b kernel cbt --iterations 5 --max-depth $d 2>&1 | grep -E "verified|cbt.reduce|leb.decode|decode_words"
    done
  done
done
sleep 5
echo "== peers --only cbt (new)"
/tmp/peers --only cbt --json $OUT/run97-peers.json 2>&1 | tail -12
echo "== 300 iterations"
for b in prev new; do
  for d in "25 --fill 1" "25 --fill 0.25"; do
    echo "-- $b, D=$d"
    /tmp/$b kernel cbt --iterations 300 --max-depth $d 2>&1 | grep -E "verified|cbt.reduce"
  done
done
} > $OUT/run97-log.txt 2>&1
tail -c 9000 $OUT/run97-log.txt
