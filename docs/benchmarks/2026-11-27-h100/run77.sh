#!/bin/bash
# Run 77 (fourteenth session): classify_merge's parent vertex from the sibling. prev = bd71a69's renderer
# (the same as cb3bbf8's), new = 7ee04dd (the parent's third vertex from the odd sibling's decoded
# vertices when the sibling is the next listed leaf, instead of a height sample from the tile
# cache). ab.sh (every pass timed), then both timed by their bounds alone
# (--pass-timing off), two rounds of the ship path at 2 px and the descent (run 73's commands).
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run77
