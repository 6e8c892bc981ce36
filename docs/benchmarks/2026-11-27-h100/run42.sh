#!/bin/bash
# Tenth session, run 42 (diagnosis; an experiment binary not in the repository, built from fb3347d):
# does the leaves' order slow the decode? At the 100th measured frame the bench reads the list back
# and the decode then visits the leaves through a permutation (BISECTOR_EXP_ORDER): `morton` (sorted
# by the Morton code of their first vertex's map point: neighbours in the list are neighbours on the
# ground) or `shuffle` (a fixed pseudo-random order). The list changes a little every frame, so the
# order is a snapshot. The decode's median in frames 8-99 (slot order) against 108-299.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
xz -dc .devmain/exp.xz > /tmp/exp; chmod +x /tmp/exp
J=/tmp/json; mkdir -p $J
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0 --warmup 600"
{
nvidia-smi --query-gpu=name --format=csv,noheader
/tmp/exp bench $P --path assets/paths/globe-taiwan-descent.json --frames 1000 --json /tmp/warm.json > /dev/null 2>&1
for round in 1 2; do
for x in none morton shuffle; do
  for p in ship2 ship1; do
    extra=""; [ $p = ship2 ] && extra="--pixel-error 2"
    BISECTOR_EXP_ORDER=$([ $x = none ] || echo $x) /tmp/exp bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 $extra --json $J/$x-$p.json > /dev/null 2>&1
    python3 - $J/$x-$p.json <<'PY'
import json, sys, statistics
fr = json.load(open(sys.argv[1]))['frames']
def med(a, b, k):
    return statistics.median(f['gpu_ms'][k] for f in fr[a:b] if k in f['gpu_ms'])
print(sys.argv[1], 'decode %.4f -> %.4f, raster.small %.4f -> %.4f, shade %.4f -> %.4f; leaves %d' % (med(8, 100, 'globe.pool_decode'), med(108, 300, 'globe.pool_decode'), med(8, 100, 'raster.small'), med(108, 300, 'raster.small'), med(8, 100, 'shade'), med(108, 300, 'shade'), fr[299]['leaves']))
PY
  done
done
done
} > $OUT/run42-log.txt 2>&1
cat $OUT/run42-log.txt
