#!/bin/bash
# Fourth session: the atmosphere's cost on the globe descent (issue 17: on vs off), the pool's
# ship path with the near-edge histogram on every 8th frame (issue 15; compare run 8), and the
# kernel lab's second round (issue 19: shift-and's transfer functions + scan, closest-pairs' GPU
# hashed grid). Log and JSON come back packed in $OUT.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
$B info 2>&1 | grep -v XDG | head -4
G="--path assets/paths/globe-taiwan-descent.json --size 1920x1080 --max-depth 29 --cache-tiles 2048 --frames 2040 --fps 0"
for a in on off; do
  echo "== planet descent, atmosphere $a"
  $B bench --terrain planet $G --atmosphere $a --json $J/planet-atmosphere-$a.json 2>&1 | grep -v XDG | grep -E "atmosphere|globe\.|cbt|frame total|^leaves"
done
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
S=assets/paths/globe-taiwan-coast-ship.json
P="--pool-slots 1048576 --cache-tiles 2048 --size 1920x1080"
echo "== ship path, pool, error 4 px (near-edge histogram every 8th frame)"
$B bench --terrain $E --path $S $P --lod error --pixel-error 4 --frames 300 --fps 0 --json $J/ship-error4.json 2>&1 | grep -v XDG | grep -E "pool\.|cbt|globe\.|atmosphere|frame total|^leaves"
for v in "--max-states 32" "--max-states 32 --count-only" "--max-states 32 --carry sequential" "--max-states 64 --count 250" "--max-states 128 --count 250"; do
  name=$(echo $v | tr -d ' -')
  c="--count 1000"; case "$v" in *"--count 250"*) c="";; esac
  echo "== shift-and $c $v"
  timeout 120 $B kernel shift-and $c $v --text-bytes 67108864 --iterations 5 --seed 1 --json $J/shift-and-$name.json 2>&1 | grep -v XDG | tail -12
done
for d in uniform clustered; do
  echo "== closest-pairs grid $d"
  timeout 120 $B kernel closest-pairs --m 1000000 --n 400000 --variant grid --distribution $d --iterations 5 --seed 1 --json $J/closest-pairs-$d.json 2>&1 | grep -v XDG | tail -12
done
} > $OUT/run10-log.txt 2>&1
tar -czf $OUT/run10-json.tar.gz -C $J .
tail -c 11000 $OUT/run10-log.txt
