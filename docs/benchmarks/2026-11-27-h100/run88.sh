#!/bin/bash
# Run 88 (sixteenth session): the compact mode has no pool.allocate pass; mark allocates each
# pattern bit's slot as it sets the bit (one update word per bit) and copies the links bisect
# reads. prev = run 87's new (the order_gains change), new = the working tree.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run88
