#!/bin/bash
# Run 85 (fifteenth session): classify copies the draw list to the last list as it reads each entry, so
# bisect and merge sum the gains alone. prev = d8f6615, new = the working tree.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run85
