#!/bin/bash
# Run 90 (sixteenth session): pool.order's free list finds each bitfield word's used slots before
# it by a walk 8 levels shorter (to its workgroup's 256 words) plus a scan of their popcounts,
# instead of a walk of D - 5 levels per word. prev = run 87's new (the committed order_gains),
# new = the working tree.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run90
