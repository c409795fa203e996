#!/usr/bin/env python3
"""apsp's Python package against scipy.sparse.csgraph.floyd_warshall on the same graph, in one
process: a dense random graph of V vertices, the median of R runs of each (the first apsp call,
which opens the device, is not timed), G relax/s = V^3 / seconds, the ratio, and where the last
apsp call's time went (Solver.last_report's parts).

Needs the package installed (pip install .) and SciPy. Not a test: no thresholds. The issue's
target is >= 25x SciPy at V = 3000 float64 on the pthread backend of a 2-core machine.
  python3 tests/bench/python_vs_scipy.py [--n 3000] [--dtype float64] [--runs 3] [--device host]
"""

import argparse
import statistics
import time

import numpy as np
from scipy.sparse.csgraph import floyd_warshall as scipy_fw

import apsp


def timed(fn, runs):
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32", "int32"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--device", default="host", help="apsp's device (host: pthread backend)")
    parser.add_argument("--tile", type=int, default=None)
    args = parser.parse_args()

    rng = np.random.default_rng(42)
    n = args.n
    if args.dtype.startswith("int"):
        graph = rng.integers(1, 1000, (n, n)).astype(args.dtype)
    else:
        graph = rng.uniform(1, 1000, (n, n)).astype(args.dtype)
    solver = apsp.Solver(device=args.device, tile=args.tile)
    solver.floyd_warshall(graph[:256, :256])  # the device opened, the kernels built

    apsp_s, got = timed(lambda: solver.floyd_warshall(graph), args.runs)
    report = solver.last_report
    scipy_s, want = timed(lambda: scipy_fw(graph), args.runs)
    err = np.max(np.abs(got.astype(np.float64) - want) / np.maximum(1, np.abs(want)))

    relax = float(n) ** 3
    print(f"V = {n}, {args.dtype} dense, median of {args.runs} runs")
    print(f"apsp  ({report['backend']}: {report['device']}, tile {report['tile']}, "
          f"threads {report['threads']}): {apsp_s:8.3f} s  {relax / apsp_s / 1e9:8.2f} G relax/s")
    print(f"scipy (floyd_warshall, float64):{' ' * 9}{scipy_s:8.3f} s  "
          f"{relax / scipy_s / 1e9:8.2f} G relax/s")
    print(f"apsp / scipy: {scipy_s / apsp_s:.1f}x; largest relative difference {err:.2e}")
    print(split(report))


def split(report):
    """Where the last call's time went: the package's NumPy work (convert, output), the copies
    into and out of the padded matrix, and the library's setup, upload, compute and download."""
    parts = ["convert", "copy_in", "setup", "upload", "compute", "download", "copy_out", "output"]
    return "split (last call, s): " + " ".join(
        f"{p} {report.get(p + '_seconds', float('nan')):.3f}" for p in parts)


if __name__ == "__main__":
    main()
