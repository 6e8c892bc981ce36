#!/bin/bash
# Run 67: prev = run 65's new, new = raster.small's corners built whole and its span written out
# edge by edge, the decode's tile records written out.
bash docs/benchmarks/2026-11-27-h100/ab.sh run67
