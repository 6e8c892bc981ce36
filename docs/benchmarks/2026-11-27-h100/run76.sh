#!/bin/bash
# Run 76 (fourteenth session): the session's renderer against its start. prev = b42ac38 (the renderer the
# session started with), new = 35e187e (run 74's, and globe.pool_decode records each vertex's tile once
# per workgroup; a split frame clears the pool's counters and histogram in one command; bench
# --pass-timing off times the span "nondraw"). ab.sh (every pass timed), then both timed by their bounds alone
# (--pass-timing off), two rounds of the ship path at 2 px and the descent (run 73's commands).
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run76
