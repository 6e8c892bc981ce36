#!/bin/bash
# The flat terrain's shipped paths under the edge-length criterion at 12 px, as the BENCHMARKS
# table "Frame passes along the shipped camera paths" was measured; then the peak memory of a
# shot of the repository's Taiwan pyramid at each grid size on a real GPU.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
$B bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --lod edge --pixel-target 12 --json $OUT/low-edge-12.json 2>&1 | grep -v XDG
$B bench --path assets/paths/high-pan.json --size 1920x1080 --frames 300 --lod edge --pixel-target 12 --json $OUT/high-edge-12.json 2>&1 | grep -v XDG
for n in 2049 4097 8193; do
  /usr/bin/time -f "max-samples $n: peak_rss_kb=%M wall %e s" $B shot --terrain heightmaps/taiwan-terrain-rgb --max-samples $n --size 1920x1080 --out /tmp/t.png 2>&1 | grep -v XDG | tail -1
done
