#!/bin/bash
# Run 70 (thirteenth session): the compact pool's draw list in tree order (pool.order passes) and
# globe.pool_decode sampling each vertex once per workgroup. prev = c5a5fdb (run 68's new), new =
# the working tree after 04f7104 (tree order) plus the decode's vertex table. ab.sh: every pass
# timed, ship path at 2 px and the descent, two rounds.
bash docs/benchmarks/2026-11-27-h100/ab.sh run70
