#!/bin/bash
# Run 86 (sixteenth session): fewer registers in the frame's widest passes. The decode loads the
# vertices again after the samples and records the vertices' tiles before the data's error
# sample; the error box keeps one bend maximum; classify reads the decode's vertices only (the
# scene decodes first where they cannot be moved). prev = 0a0545b, new = the working tree.
bash docs/benchmarks/2026-11-27-h100/ab-off.sh run86
