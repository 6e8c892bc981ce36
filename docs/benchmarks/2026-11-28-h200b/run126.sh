#!/bin/bash
# Run 126 (twentieth session, kind nvidia-h200): the moved ship path at 2 px with the detail below
# the data on (the default) and off, the session's last renderer: leaves and span (README's figure).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/final.xz > /tmp/new; chmod +x /tmp/new
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600 --pass-timing off --pixel-error 2"
S=assets/paths/globe-taiwan-coast-ship.json
{
for round in 1 2; do
  for d in on off; do
    /tmp/new bench $P --path $S --frames 300 --detail $d --json /tmp/ship-detail-$d-$round.json > /dev/null 2>&1
    echo -n "detail $d, round $round: "; python3 docs/benchmarks/nondraw.py /tmp/ship-detail-$d-$round.json
  done
done
} > $OUT/run126-log.txt 2>&1
cat $OUT/run126-log.txt
