#!/bin/bash
# Run 98 (seventeenth session). prev = 190bc97's binary (`kernel cbt` checking its result after
# the first iteration; wgpu's indirect-call check already off, so prev and new are the same
# renderer: the bench rows compare nothing but the run); new = the session's code at the time
# (`kernel cbt` warming up for 200 ms, checking at the end, and timing the reduction's
# dispatches alone back to back in one submission). 1) `kernel cbt` at D = 25 with 5 and 300
# iterations (new only). 2) The flat terrain's low flyover, prev and new alternating, timed by its
# bounds. 3) The Taiwan descent to 2 m (globe-taiwan-descent-2m.json), prev and new, timed by its
# bounds.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for n in 5 300; do
  for d in "25 --fill 1" "25 --fill 0.25"; do
    echo "-- new, D=$d, $n iterations"
    /tmp/new kernel cbt --iterations $n --max-depth $d 2>&1 | grep -E "verified|cbt.reduce"
  done
done
for round in 1 2; do
  for b in prev new; do
    /tmp/$b bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --fps 0 --pass-timing off --json $J/$b-flat-$round.json > /dev/null 2>&1
    /tmp/$b bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/$b-descent2m-$round.json > /dev/null 2>&1
  done
done
for f in $J/*descent2m*.json; do python3 docs/benchmarks/nondraw.py $f; done
for f in $J/*flat*.json; do python3 -c "
import json,sys
fr=json.load(open('$f'))['frames']
v=sorted(f['frame_gpu_ms'] for f in fr)
print('$f', len(v), 'frames; frame median %.3f p99 %.3f ms' % (v[len(v)//2], v[int(0.99*(len(v)-1))]))
"; done
} > $OUT/run98-log.txt 2>&1
tar -czf $OUT/run98-json.tar.gz -C $J .
tail -c 7000 $OUT/run98-log.txt
