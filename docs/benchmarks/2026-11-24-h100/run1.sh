#!/bin/bash
# After issue 13 and the first slices of issue 14 (shared decode WGSL, shared shading, layers,
# chunked uploads): the procedural planet's descent (unpaced) and the flat terrain's low flyover
# (12 px) and high pan, the same commands as the 2026-11-23 figures; then a default shot of the
# repository's Taiwan pyramid for its peak memory on a real GPU.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
$B info 2>&1 | grep -v XDG | head -4
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040"
$B bench --terrain planet $G --fps 0 --json $OUT/planet-unpaced.json 2>&1 | grep -v XDG
$B bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --pixel-target 12 --json $OUT/low-12.json 2>&1 | grep -v XDG
$B bench --path assets/paths/high-pan.json --size 1920x1080 --frames 300 --json $OUT/high.json 2>&1 | grep -v XDG
T=""; [ -x /usr/bin/time ] && T="/usr/bin/time -f peak_rss_kb=%M"
$T $B shot --terrain heightmaps/taiwan-terrain-rgb --size 1920x1080 --out $OUT/taiwan.png 2>&1 | grep -v XDG
