#!/bin/bash
# The globe descent on the device: Earth (ETOPO + Taiwan) and the procedural planet, 1920x1080, D=29.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
B=.devmain/bisector
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
P=assets/paths/globe-taiwan-descent.json
C="--size 1920x1080 --max-depth 29 --cache-tiles 2048"
$B info 2>&1 | grep -v XDG | head -4
bench() { local name=$1; shift; /usr/bin/time -f "$name wall %e s" $B bench $C --path $P --frames 2040 --json $OUT/$name.json --plot $OUT/$name.png "$@" 2>&1 | grep -v XDG; }
bench earth-descent --terrain $E
bench planet-descent --terrain planet
bench earth-descent-unpaced --terrain $E --fps 0
shot() { local name=$1; shift; $B shot $C --out $OUT/$name.png "$@" 2>&1 | grep -v XDG | tail -2; }
shot earth-t24 --terrain $E --camera 121.75,24.1,3000,300,-20
shot earth-t30 --terrain $E --camera 121.68,24.135,400,295,-8
