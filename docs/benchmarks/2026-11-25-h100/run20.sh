#!/bin/bash
# Seventh session: the pool's criterion moves the last decode's vertices (no tile-cache heights in
# pool.classify_*), and the decode records the tiles it sampled (no second lookups). The ship path
# at 1080p, pixel errors 1 and 2 (compare run 18), the Earth descent to 2 m at 2 px, the edge
# criterion at 2 px targets on the ship path (what near_edge_m costs), the bridge shot's figures.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
J=/tmp/json; mkdir -p $J
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
E=planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb
P="--terrain $E --size 1920x1080 --cache-tiles 2048 --fps 0"
for px in 1 2; do
  echo "== ship path, --pixel-error $px"
  $B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --pixel-error $px --json $J/ship-px$px.json 2>&1 | grep -v XDG | grep -E "globe\.|pool\.|cbt|frame total|^leaves|near_edge|capped"
done
echo "== ship path, --lod edge --pixel-target 4"
$B bench $P --path assets/paths/globe-taiwan-coast-ship.json --frames 300 --lod edge --pixel-target 4 --json $J/ship-edge4.json 2>&1 | grep -v XDG | grep -E "pool_decode|pool_draw|frame total|^leaves|near_edge"
echo "== Earth descent to 2 m, --pixel-error 2"
$B bench $P --path assets/paths/globe-taiwan-descent-2m.json --frames 2040 --pixel-error 2 --json $J/descent2m-px2.json 2>&1 | grep -v XDG | grep -E "globe\.|pool\.|cbt|frame total|^leaves|near_edge|capped"
echo "== bridge shot 1080p, 1 px and 2 px"
for px in 1 2; do
  $B shot --terrain $E --camera assets/paths/globe-taiwan-coast-ship.json --size 1920x1080 --cache-tiles 2048 --pixel-error $px --out /tmp/ship-px$px.png --json $J/shot-px$px.json 2>&1 | grep -v XDG
done
python3 --version; python3 -c "import numpy, scipy; print('numpy', numpy.__version__, 'scipy', scipy.__version__)" 2>&1 | tail -1; nproc
} > $OUT/run20-log.txt 2>&1
tar -czf $OUT/run20-json.tar.gz -C $J .
tail -c 9000 $OUT/run20-log.txt
