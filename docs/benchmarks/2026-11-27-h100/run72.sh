#!/bin/bash
# Run 72 (thirteenth session): the compact pool's draw list in tree order by two passes (pool.order_gains,
# pool.order, over the changed bits allocate and merge set; no list index written by classify) and globe.pool_decode sampling each
# vertex once per workgroup. prev = c5a5fdb (run 68's new), new = the working tree at this run.
# ab.sh: every pass timed, ship path at 2 px and the descent, two rounds.
bash docs/benchmarks/2026-11-27-h100/ab.sh run72
