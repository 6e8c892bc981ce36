#!/bin/bash
# Run 83 (fifteenth session): no pool.threshold pass in the compact mode (classify sums the histogram;
# mark's workgroups take b* = 0 while the sum fits the free slots, else scan). prev = 011ca68, new = the working tree.
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run83
