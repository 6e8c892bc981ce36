#!/bin/bash
# Seventh session: issue 16's figures (scripts/tile-rates, run from release test binaries built
# where the sources are, at 7f61b68): tiles/s read from the folder, MBTiles, PMTiles, a local
# server and the disk cache; tiles/s into the GPU tile cache along the Taiwan descent from each;
# `bisector tiles` throughput and the lazy reader's rates on a generated 2.5 GB BigTIFF.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
R=$PWD
# The test binaries name the repository and the bisector binary by the paths they were built at.
mkdir -p /work; [ -e /work/main ] || ln -s "$R" /work/main
mkdir -p target/release target/tmp
gunzip -c .devmain/bisector-byod.gz > target/release/bisector; chmod +x target/release/bisector
for t in tile_http cog; do gunzip -c .devmain/$t.gz > /tmp/$t; chmod +x /tmp/$t; done
cd /work/main
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
/tmp/tile_http --ignored --nocapture --test-threads 1 tile_rates globe_descent_tile_rates 2>&1 | grep -v XDG
BISECTOR_COG_TILES=1 BISECTOR_COG_MEASURE=/tmp timeout 400 /tmp/cog --ignored --nocapture measure_a_large_file 2>&1 | grep -v XDG
} > $OUT/run22-log.txt 2>&1
tail -c 11000 $OUT/run22-log.txt
