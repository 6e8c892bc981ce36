#!/bin/bash
# Run 82b (fifteenth session): run 82's decode restructured (a leaf's loads in one function, its
# id loaded before the first barrier) with one leaf a thread. prev = 011ca68, new = the working tree.
# ab.sh (every pass timed), then both timed by their bounds alone (--pass-timing off), as run 77.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run82b
