#!/bin/bash
# The bisector pool on the GPU (issue 15 steps 5-8): `kernel pool` on a 2^20-slot pool at three
# leaf counts (random splits to depth 14, 17 and 19 with a new salt every frame: heavy churn),
# 8 foci refined to 60 levels below the octahedron; then a 2^22-slot pool.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
gunzip -c .devmain/bisector.gz > /tmp/b; chmod +x /tmp/b
B=/tmp/b
for d in 14 17 19; do
  $B kernel pool --pool-slots 1048576 --random-depth $d --frames 400 --seed 7 --json $OUT/pool-20-d$d.json 2>&1 | grep -v XDG
done
$B kernel pool --pool-slots 4194304 --random-depth 21 --frames 200 --seed 7 --json $OUT/pool-22-d21.json 2>&1 | grep -v XDG
