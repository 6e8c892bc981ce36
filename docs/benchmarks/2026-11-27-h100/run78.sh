#!/bin/bash
# Run 78 (fifteenth session): pool.split_chain. prev = 011ca68, new = the working tree (split frames
# with short lists run threshold, mark, allocate and bisect in one workgroup, then pool.gains).
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run78
