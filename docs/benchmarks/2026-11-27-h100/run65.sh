#!/bin/bash
# Run 65: prev = ebf6c10, new = no array indexed at run time in the decode's hot paths (the detail's
# gradient computed, the data error's bends written out, the draw corners' order by select).
bash docs/benchmarks/2026-11-27-h100/ab.sh run65
