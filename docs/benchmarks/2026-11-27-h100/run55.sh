#!/bin/bash
# Run 55: shift-and, prev = 73aced8 (the eleventh session's end), new = the mask table transposed
# (ch[byte * words + word]) and the long runs of extra and transfer handed to extra_long and transfer_long.
bash docs/benchmarks/2026-11-27-h100/kernels.sh run55 shift-and
