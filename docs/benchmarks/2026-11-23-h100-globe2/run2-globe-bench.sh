#!/bin/bash
# The globe descent on the device: Earth (ETOPO + Taiwan) and the procedural planet, 1920x1080, D=29;
# then the flat terrain's shipped paths (cbt.reduce over changed blocks there too).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
B=.devmain/bisector
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
P=assets/paths/globe-taiwan-descent.json
C="--size 1920x1080 --max-depth 29 --cache-tiles 2048"
$B info 2>&1 | grep -v XDG | head -4
bench() { local name=$1; shift; /usr/bin/time -f "$name wall %e s" $B bench $C --path $P --frames 2040 --json $OUT/$name.json "$@" 2>&1 | grep -v XDG; }
bench earth-descent --terrain $E --plot $OUT/earth-descent.png
bench planet-descent --terrain planet
bench earth-descent-unpaced --terrain $E --fps 0
$B bench --path assets/paths/low-flyover.json --size 1920x1080 --frames 600 --pixel-target 12 --json $OUT/low-12.json 2>&1 | grep -v XDG
$B bench --path assets/paths/high-pan.json --size 1920x1080 --frames 300 --json $OUT/high.json 2>&1 | grep -v XDG
