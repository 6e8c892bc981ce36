#!/bin/bash
# Run 129 (twenty-first session, issue 15, kind nvidia-h200): the SM clock while bench runs the
# ship path at 1 px (head = 5fdd814), sampled every 50 ms by nvidia-smi, and the GPU's
# utilisation: are the span's figures taken at the boost clock?
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/head.xz > /tmp/head; chmod +x /tmp/head
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
S=assets/paths/globe-taiwan-coast-ship.json
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.applications.graphics,power.draw,pstate --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,pstate --format=csv,noheader -lms 50 > /tmp/clocks.csv &
S_PID=$!
/usr/bin/time -f "bench wall %e s" /tmp/head bench $P --path $S --frames 3000 --json /tmp/ship1.json 2>&1 | tail -3
kill $S_PID
python3 docs/benchmarks/nondraw.py /tmp/ship1.json
python3 docs/benchmarks/parity.py /tmp/ship1.json
echo "== SM clock samples during the bench (MHz: count)"
awk -F', ' '{print $2}' /tmp/clocks.csv | sort | uniq -c | sort -k1 -nr | head -12
echo "== utilisation samples (%: count)"
awk -F', ' '{print $4}' /tmp/clocks.csv | sort | uniq -c | sort -k1 -nr | head -8
} > $OUT/run129-log.txt 2>&1
cat $OUT/run129-log.txt
