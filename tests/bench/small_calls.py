#!/usr/bin/env python3
"""One small graph per call: apsp.floyd_warshall against scipy.sparse.csgraph.floyd_warshall,
side by side in one process, and another build of the package (--old) beside them for a before
and after. Graphs as graph learning holds them (issue 42): V vertices, E = 1.1 V random edges,
unweighted float64, undirected, given dense (an ndarray) and as CSR. Each round calls every
contender once per graph in turn; the figure is the median over all rounds, in microseconds per
call. Not a test: no thresholds.

  python3 tests/bench/small_calls.py [--sizes 5,30,60,128] [--rounds 3000] [--old DIR]

DIR (and the package under test, --new, default: the installed or importable one) is a folder
holding the package as `apsp/` (src/python/apsp/*.py and build/src/python/_core*.so copied
there), so that two builds load side by side in one interpreter.
"""

import argparse
import importlib
import statistics
import sys
import time

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import floyd_warshall as scipy_fw


def load_package(folder):
    """The package `apsp` from `folder` (None: as Python finds it), under its own module objects
    so that another folder's can be loaded beside it."""
    for name in [m for m in sys.modules if m == "apsp" or m.startswith("apsp.")]:
        del sys.modules[name]
    if folder:
        sys.path.insert(0, folder)
    try:
        return importlib.import_module("apsp")
    finally:
        if folder:
            sys.path.remove(folder)


def graph(rng, n):
    edges = int(round(1.1 * n))
    rows, cols = rng.integers(0, n, edges), rng.integers(0, n, edges)
    csr = scipy.sparse.csr_matrix((np.ones(edges), (rows, cols)), shape=(n, n))
    return csr.toarray(), csr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5,30,60,128")
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--new", default=None, help="folder of the package under test")
    parser.add_argument("--old", default=None, help="folder of the package before")
    args = parser.parse_args()

    contenders = {"scipy": scipy_fw, "apsp": load_package(args.new).floyd_warshall}
    if args.old:
        contenders["apsp old"] = load_package(args.old).floyd_warshall
    rng = np.random.default_rng(42)
    print(f"{args.rounds} rounds, medians in us per call; E = 1.1 V, unweighted, undirected")
    print("| V | input | " + " | ".join(contenders) + " | apsp / scipy |")
    print("|---|---|" + "---|" * (len(contenders) + 1))
    for n in (int(s) for s in args.sizes.split(",")):
        dense, csr = graph(rng, n)
        for name, g in (("dense", dense), ("CSR", csr)):
            want = scipy_fw(g, directed=False)
            seconds = {c: [] for c in contenders}
            for fn in contenders.values():  # the first call opens the device: not timed
                np.testing.assert_array_equal(fn(g, directed=False), want)
            for _ in range(args.rounds):
                for c, fn in contenders.items():
                    start = time.perf_counter()
                    fn(g, directed=False)
                    seconds[c].append(time.perf_counter() - start)
            us = {c: statistics.median(s) * 1e6 for c, s in seconds.items()}
            cells = " | ".join(f"{us[c]:.1f}" for c in contenders)
            print(f"| {n} | {name} | {cells} | {us['apsp'] / us['scipy']:.2f}x |")


if __name__ == "__main__":
    main()
