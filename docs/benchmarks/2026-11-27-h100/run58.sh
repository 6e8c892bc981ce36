#!/bin/bash
# Run 58: shift-and, prev = run 57's new, new = the masks of 12 bytes loaded together before their steps
bash docs/benchmarks/2026-11-27-h100/chunks.sh run58 "prev 0" "new 0" "new 32768"
