#!/bin/bash
# Sixth session, after merging the kernel lab's second round (issue 19 items 3-5: the bucketed
# tile table, cbt.reduce's subgroup path, compact-hash read by a subgroup) and the 2 px floor of
# the globe's error criterion: the kernels as their authors asked, then the ship path at 1080p
# over the default pool with occlusion culling at pixel errors 1, 2 and 3.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
$B info 2>&1 | grep -v XDG | head -3
for D in 17 20 25; do for F in 1 0.25; do for P in subgroup shared; do
  echo "== kernel cbt D=$D fill $F $P"
  $B kernel cbt --max-depth $D --fill $F --iterations 300 --reduce-path $P --json $J/cbt-$D-$F-$P.json 2>&1 | grep -v XDG | tail -4
done; done; done
echo "== kernel cbt D=28 subgroup"
$B kernel cbt --max-depth 28 --fill 1 --iterations 100 --reduce-path subgroup --json $J/cbt-28-1-subgroup.json 2>&1 | grep -v XDG | tail -4
for b in 2 4 8 16 32; do
  echo "== compact-hash bucket $b"
  $B kernel compact-hash --length 4 --bucket-size $b --table-log2 24 --fill 0.5 --iterations 20 --seed 7 --subgroup --json $J/compact-4-b$b-24-subgroup.json 2>&1 | grep -v XDG | tail -6
done
echo "== tile-table 2^24"
timeout 240 $B kernel tile-table --capacity-log2 24 --json $J/tile-table-24.json 2>&1 | grep -v XDG | tail -16
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0"
for px in 1 2 3; do
  echo "== ship path, default pool, occlusion, --pixel-error $px"
  $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error $px --json $J/ship-px$px.json 2>&1 | grep -v XDG | grep -E "globe\.|pool\.|cbt|frame total|^leaves|near_edge|capped"
done
} > $OUT/run16-log.txt 2>&1
tar -czf $OUT/run16-json.tar.gz -C $J .
tail -c 11000 $OUT/run16-log.txt
