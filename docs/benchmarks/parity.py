#!/usr/bin/env python3
"""The span ("nondraw", from a bench JSON run with --pass-timing off) of a pool bench by frame
parity: the pool alternates split and merge frames, so the two parities are the two kinds (which
is which is not recorded with the pass timing off; the merge frames' decode also samples the data's
error). Usage: parity.py FILE.json..."""
import json, sys
from nondraw import pct

for path in sys.argv[1:]:
    frames = json.load(open(path))['frames']
    out = []
    for parity in (0, 1):
        v = [f['gpu_ms']['nondraw'] for k, f in enumerate(frames) if k % 2 == parity and 'nondraw' in f['gpu_ms']]
        out.append(f"parity {parity}: median {pct(v, 50):.3f} p99 {pct(v, 99):.3f} max {max(v):.3f} ms")
    print(f"{path}: " + "; ".join(out))
