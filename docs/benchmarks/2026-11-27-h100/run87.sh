#!/bin/bash
# Run 87 (sixteenth session): order_gains (the gains' sum in the frame's last update pass, bisect or
# merge) takes four entries a round, their loads issued together. prev = 57c2e67 (run 86's new),
# new = the working tree.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run87
