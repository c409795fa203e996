#!/usr/bin/env python3
"""One source from Python on a SciPy CSR (docs/performance.md, "One source from Python on a
canonical CSR"): apsp.dijkstra beside SciPy's dijkstra in one process, medians of many calls,
the rows compared.

    python_one_source.py [--side=300] [--reps=15]   (apsp importable: installed, or on PYTHONPATH)

The graph: a side x side grid, both directions, whole weights 1-99 as float64 (fixed seed), a
canonical CSR. No thresholds: it prints the figures."""
import argparse
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as cg

import apsp


def grid(side, seed=1):
    n = side * side
    idx = np.arange(n).reshape(side, side)
    r = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    c = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    w = np.random.default_rng(seed).integers(1, 100, len(r)).astype(float)
    g = sp.csr_matrix((np.concatenate([w, w]), (np.concatenate([r, c]), np.concatenate([c, r]))),
                      shape=(n, n))
    g.sort_indices()
    return g


def median_seconds(f, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", type=int, default=300)
    ap.add_argument("--reps", type=int, default=15)
    a = ap.parse_args()
    g = grid(a.side)
    same = np.array_equal(apsp.dijkstra(g, indices=5), cg.dijkstra(g, indices=5))
    ours = median_seconds(lambda: apsp.dijkstra(g, indices=5), a.reps)
    scipy = median_seconds(lambda: cg.dijkstra(g, indices=5), a.reps)
    print("V = %d: apsp %.2f ms, SciPy %.2f ms, SciPy / apsp %.2f; rows %s" % (
        g.shape[0], ours * 1e3, scipy * 1e3, scipy / ours, "identical" if same else "DIFFER"))


if __name__ == "__main__":
    main()
