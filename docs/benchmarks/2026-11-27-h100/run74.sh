#!/bin/bash
# Run 74 (fourteenth session): one pool pass after the reduction. prev = b42ac38 (the renderer the
# session started with), new = b13d83a (pool.order does pool.list's work; pool.order_gains rides on
# bisect or merge; bench --pass-timing off also times the update, reduction and decode by their
# bounds: the span "nondraw"). ab.sh (every pass timed), then both timed by their bounds alone
# (--pass-timing off), two rounds of the ship path at 2 px and the descent (run 73's commands).
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run74
