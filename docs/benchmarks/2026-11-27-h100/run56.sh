#!/bin/bash
# Run 56: shift-and, prev = 35c26b7 (run 55's new, with one counter check per thread once the
# position list is full), new = patterns of one module packed up to 8 to a word (units), match
# counts in fields of an accumulator.
bash docs/benchmarks/2026-11-27-h100/kernels.sh run56 shift-and
