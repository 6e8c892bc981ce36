#!/usr/bin/env python3
"""The scipy peer of `scripts/peers` (closest pairs): scipy.spatial.cKDTree over army B on all
cores (workers=-1), every A's nearest B, the K closest (A, B) printed as JSON on stdout.

Usage: peers_ckdtree.py A.f32 B.f32 K REPEATS  (raw little-endian f32 x, y, z per point).
The harness (examples/peers) writes the files, runs this in a child process and re-ranks the K
candidates with the kernel's own f32 distance; the time printed is the tree build plus the query.
"""
import json
import sys
import time

import numpy as np
import scipy
from scipy.spatial import cKDTree


def main():
    a_path, b_path, k, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    a = np.fromfile(a_path, dtype="<f4").reshape(-1, 3)
    b = np.fromfile(b_path, dtype="<f4").reshape(-1, 3)
    times_ms, build_ms = [], []
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        tree = cKDTree(b)
        built = time.perf_counter()
        distance, index = tree.query(a, k=1, workers=-1)
        times_ms.append((time.perf_counter() - start) * 1e3)
        build_ms.append((built - start) * 1e3)
    k = min(k, len(a))
    best = np.argpartition(distance, k - 1)[:k] if k < len(a) else np.arange(len(a))
    best = best[np.lexsort((best, distance[best]))]
    answer = {"scipy": scipy.__version__, "ms": times_ms, "build_ms": build_ms, "a": best.tolist(), "b": index[best].tolist()}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
