#!/bin/bash
# Run 128 (twenty-first session, issue 15, kind nvidia-h200): head = the twentieth session's last
# renderer (5fdd814), skip = the decode leaves the data's error bound at 0 for leaves whose
# hypotenuse projects under 1.5 px (they cannot split: the criterion's floor is 2 px). The ship
# path at 1 px, three rounds alternating, and at 2 px, timed by their bounds; the span by frame
# parity (split and merge frames alternate); the descent to 2 m at 1 px once each. skiph = skip, and
# hidden leaves (outside the frustum or behind the horizon) too.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in head skip skiph; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off"
S=assets/paths/globe-taiwan-coast-ship.json
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
for round in 1 2 3; do
  for b in head skip skiph; do
    /tmp/$b bench $P --path $S --frames 300 --json $J/$b-ship1-$round.json > /dev/null 2>&1
  done
done
for b in head skip skiph; do
  /tmp/$b bench $P --path $S --frames 300 --pixel-error 2 --json $J/$b-ship2.json > /dev/null 2>&1
done
for b in head skip; do
  /tmp/$b bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2520 --json $J/$b-descent2m.json > /dev/null 2>&1
done
for f in $J/*.json; do python3 docs/benchmarks/nondraw.py $f; python3 docs/benchmarks/parity.py $f; done
} > $OUT/run128-log.txt 2>&1
tar -cJf $OUT/run128-json.tar.xz -C $J .
tail -c 6000 $OUT/run128-log.txt
