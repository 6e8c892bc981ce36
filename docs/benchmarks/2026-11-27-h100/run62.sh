#!/bin/bash
# Run 62: kernel cbt, prev = a7b4edc, new = with cbt.decode_words (one thread per bitfield word)
# timed beside leb.decode.
bash docs/benchmarks/2026-11-27-h100/kernels.sh run62 cbt
