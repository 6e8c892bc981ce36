#!/bin/bash
# Run 91 (sixteenth session): loads issued before the values that guard them are known: mark's
# first candidate and its bucket before b* (a barrier), and the classify passes' and the decode's
# list entry before the leaf count. prev = run 90's new (138b5ea), new = the working tree.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run91
