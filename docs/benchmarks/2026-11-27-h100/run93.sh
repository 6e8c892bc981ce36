#!/bin/bash
# Run 93 (sixteenth session): two more chains of loads shortened: pool.order sums the earlier
# workgroups' gains four loads a round; the classify passes read a leaf's three decoded corners by
# its list index, before its depth (which orders them) arrives. prev = 138b5ea, new = the working
# tree.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run93
