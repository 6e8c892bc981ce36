#!/bin/bash
# Run 80 (fifteenth session): pool.split_chain in a workgroup of up to 1024 threads (run 78's had
# 256). prev = 011ca68, new = the working tree.
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run80
