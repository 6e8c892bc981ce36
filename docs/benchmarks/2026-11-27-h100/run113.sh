#!/bin/bash
# Run 113 (eighteenth session, issue 15, kind nvidia-h100-x1): after run 112, less workgroup
# memory: prev = b4f2746 (the decode's 15,072 bytes, 1,736 of them the near-edge bins), new = the
# near-edge histogram binned with global atomics, no bins in workgroup memory (run113.patch).
# Two rounds alternating: the ship path at 2 px with every pass timed, then timed by its bounds;
# then the register counts and shared memory of new's decode pipelines.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
/tmp/prev bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
  for b in prev new; do
    echo "== $b round $round"
    /tmp/$b bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-ship2-$round.json 2>&1 | grep -E "pool\.|globe.pool|frame total" | cut -c1-100
    /tmp/$b bench $P --pass-timing off --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error 2 --json $J/$b-off-ship2-$round.json > /dev/null 2>&1
  done
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; done
BISECTOR_DUMP_PIPELINES=/tmp/dump113 /tmp/new bench --terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 2 \
  --path assets/paths/globe-taiwan-coast-ship.json --frames 2 --pixel-error 2 --json /tmp/d113.json > /dev/null 2>&1
./.devmain/pstats-bin /tmp/dump113 | sed 's/| Binary Size=[0-9]* | Stack Size=0 | Local Memory Size=[0-9]* //' | grep -E "decode"
} > $OUT/run113-log.txt 2>&1
tar -czf $OUT/run113-json.tar.gz -C $J .
tail -c 5000 $OUT/run113-log.txt
