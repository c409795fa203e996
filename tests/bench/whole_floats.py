#!/usr/bin/env python3
"""Whole-number floats through the integer kernels (src/whole/), timed from Python in one
process: a dense random graph of V vertices with whole weights in [1, 1000), solved as an int32
array (the int32 path), as a float64 array (the int32 kernels and the conversions) and as a
float64 array with Solver(float_kernels=True) (the float path). The runs interleave (a, b, c, a,
b, c, ...) so that a shared machine's load falls on all three alike; medians of R runs after one
untimed call each. Prints each call's seconds and G relax/s (V^3 / seconds), the library's
compute and whole_seconds (on the dense path, which goes by rows, the conversions are in copy_in
and copy_out instead), the ratios the issue asks for, and where each call's time went.

Needs the package installed (pip install .), or the extension from a build directory and
src/python/apsp/ on PYTHONPATH. Not a test: no thresholds (the target: the float64
graph at >= 0.85x the int32 path's speed, i.e. at most 1/0.85 of its time).
  python3 tests/bench/whole_floats.py [--n 3000] [--runs 3] [--device host] [--dtype float64]
"""

import argparse
import statistics
import time

import numpy as np

import apsp


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--device", default="host", help="apsp's device (host: pthread backend)")
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    args = parser.parse_args()

    rng = np.random.default_rng(42)
    n = args.n
    whole = rng.integers(1, 1000, (n, n))
    graphs = {
        "int32 array": whole.astype(np.int32),
        f"{args.dtype}, whole": whole.astype(args.dtype),
        f"{args.dtype}, float_kernels": whole.astype(args.dtype),
    }
    solvers = {
        name: apsp.Solver(device=args.device, float_kernels=name.endswith("float_kernels"))
        for name in graphs
    }
    results = {}
    for name, solver in solvers.items():  # untimed: the device opened, the matrix made
        results[name] = solver.floyd_warshall(graphs[name])
    seconds = {name: [] for name in graphs}
    reports = {name: [] for name in graphs}
    for _ in range(args.runs):
        for name, solver in solvers.items():
            start = time.perf_counter()
            solver.floyd_warshall(graphs[name])
            seconds[name].append(time.perf_counter() - start)
            reports[name].append(solver.last_report)
    # Bit for bit, not by value: the bytes of the two float results.
    same = results[f"{args.dtype}, whole"].tobytes() == results[f"{args.dtype}, float_kernels"].tobytes()
    relax = float(n) ** 3
    print(f"V = {n}, dense whole weights in [1, 1000), {args.device}, median of {args.runs} runs")
    print(f"{'graph':24} {'call s':>8} {'G relax/s':>10} {'compute s':>10} {'whole s':>8}  kernels")
    median = {}
    for name in graphs:
        median[name] = statistics.median(seconds[name])
        compute = statistics.median(r["compute_seconds"] for r in reports[name])
        convert = statistics.median(r["whole_seconds"] for r in reports[name])
        print(f"{name:24} {median[name]:8.3f} {relax / median[name] / 1e9:10.2f} {compute:10.3f} "
              f"{convert:8.3f}  {reports[name][-1]['kernels']}: {reports[name][-1]['kernels_why']}")
    whole_name, float_name = f"{args.dtype}, whole", f"{args.dtype}, float_kernels"
    print(f"{args.dtype} whole / int32 path speed: {median['int32 array'] / median[whole_name]:.2f}x; "
          f"vs the float path: {median[float_name] / median[whole_name]:.2f}x faster; "
          f"same result as the float path: {same}")
    print_breakdown(graphs, seconds, reports)


# Where a call's time goes, as last_report splits it (medians over the runs): the package's
# NumPy work (convert, output), the extension's copies and conversions on the host's cores
# (copy_in, copy_out), the library's choice and conversions of the whole path (whole), its
# set-up, upload, kernels (compute), download and release; "other" is the call's time that no
# part names. A field that this build's report lacks counts 0.
PARTS = ["convert", "copy_in", "whole", "setup", "upload", "compute", "download", "release",
         "copy_out", "output"]


def print_breakdown(graphs, seconds, reports):
    print(f"{'breakdown, s':24} " + " ".join(f"{part:>8}" for part in PARTS + ["other"]))
    for name in graphs:
        parts = [statistics.median(r.get(f"{part}_seconds", 0.0) for r in reports[name])
                 for part in PARTS]
        other = statistics.median(seconds[name]) - sum(parts)
        print(f"{name:24} " + " ".join(f"{x:8.3f}" for x in parts + [other]))


if __name__ == "__main__":
    main()
