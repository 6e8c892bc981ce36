#!/bin/bash
# Globe shots on the device: the procedural planet and the Earth (ETOPO + Taiwan), D=29.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
B=.devmain/bisector
E=planet:.devmain/data/geotiff/etopo20_global.tif,.devmain/data/taiwan-terrain-rgb
$B info 2>&1 | head -3
run() { local name=$1; shift; /usr/bin/time -f "$name wall %e s" $B shot --size 1920x1080 --max-depth 29 --cache-tiles 2048 --out $OUT/$name.png "$@" 2>&1 | grep -v XDG; }
run earth-orbit --terrain $E
run taiwan-30km --terrain $E --camera 121.3,22.6,30000,10,-25
run yushan-150m --terrain $E --camera 120.93,23.40,4100,20,-10
run taroko-600m --terrain $E --camera 121.56,24.16,600,270,-4
run planet-orbit --terrain planet
run taiwan-30km-wire --terrain $E --camera 121.3,22.6,30000,10,-25 --wireframe
