#!/bin/bash
# Run 57: shift-and, prev = b3f0f8f (run 56's new: units), new = the (unit, chunk) pairs numbered
# chunk by chunk (no idle lanes after a chunk's last unit), the long runs' text read a word at a
# time, the long passes timed apart; new at the default chunk length (64 KiB) and at 32, 16 and
# 8 KiB.
bash docs/benchmarks/2026-11-27-h100/chunks.sh run57 "prev 0" "new 0" "new 32768" "new 16384" "new 8192"
