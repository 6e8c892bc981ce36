#!/bin/bash
# Run 84 (fifteenth session): the near-edge histogram on merge frames (frames 7, 15, ... of every 8)
# instead of split frames (0, 8, ...). prev = a01c3dc, new = the working tree.
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run84
