#!/bin/bash
# Run 79 (fifteenth session): classify_split reads each leaf's depth from the last decode (the second
# vertex's w) instead of its slot's id. prev = 011ca68, new = the working tree.
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run79
