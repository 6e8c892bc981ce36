#!/usr/bin/env python3
"""Per-frame figures of a pool bench JSON: non-draw (the pool's passes + cbt.reduce + pool.list +
globe.pool_decode) median / p99 / max (with `--pass-timing off`: the span "nondraw", the same passes
timed by their bounds alone), frame median / p99, capped (refused by depth or pool in the
last split frame) and pending-split leaves, near_edge_m median. Usage: nondraw.py FILE.json..."""
import json, sys

def pct(values, p):
    v = sorted(values)
    if not v:
        return float('nan')
    k = (len(v) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)

def main():
    for path in sys.argv[1:]:
        frames = json.load(open(path))['frames']
        nondraw, frame, capped, pending, leaves, near = [], [], [], [], [], []
        for f in frames:
            g = f['gpu_ms']
            if 'nondraw' in g:
                nondraw.append(g['nondraw'])
            else:
                nondraw.append(sum(v for k, v in g.items() if k.startswith('pool.') or k in ('cbt.reduce', 'globe.pool_decode')))
            frame.append(f['frame_gpu_ms'])
            capped.append(f.get('capped_leaves', 0))
            pending.append(f.get('pending_split_leaves', 0))
            leaves.append(f['leaves'])
            if 'near_edge_m' in f:
                near.append(f['near_edge_m']['median'])
        print(f"{path}: {len(frames)} frames, leaves median {pct(leaves, 50):.0f}; non-draw median {pct(nondraw, 50):.3f} p99 {pct(nondraw, 99):.3f} max {max(nondraw):.3f} ms; "
              f"frame median {pct(frame, 50):.2f} p99 {pct(frame, 99):.2f} ms; capped median {pct(capped, 50):.0f} max {max(capped)}; "
              f"pending median {pct(pending, 50):.0f}; near_edge median {pct(near, 50):.2f} m ({len(near)} frames)")

if __name__ == '__main__':
    main()
