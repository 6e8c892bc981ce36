#!/bin/bash
# Run 81b (fifteenth session): run 81's experiment binary, E = 0, 8 (the positions twice) and 16 (the
# cull test and projections twice), two rounds.
bash docs/benchmarks/2026-11-27-h100/run81.sh run81b "0 8 16"
