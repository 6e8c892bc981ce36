#!/bin/bash
# Run 59: shift-and, prev = run 57's new, new = the masks of 12 bytes loaded together before their steps, in
# three vectors (run 58 kept them in an array, which went to local memory)
bash docs/benchmarks/2026-11-27-h100/chunks.sh run59 "prev 0" "new 0" "new 32768"
