#!/bin/bash
# Run 82 (fifteenth session): globe.pool_decode takes two listed leaves a thread (a vertex table of
# 512 leaves, 26 KiB of workgroup memory). prev = 011ca68, new = the working tree.
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run82
