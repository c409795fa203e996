#!/usr/bin/env python3
"""Many molecule-sized graphs (issue 42): apsp.floyd_warshall_batch against a loop of SciPy's
floyd_warshall. Graphs of 5-60 vertices, E = 1.1 V random edges, undirected, unweighted, given
as a PyG-style edge_index with per-graph node counts, and as a list of CSR matrices; the SciPy
loop solves the CSR list (its fastest input). --runs rounds after a warm-up, each round the SciPy
loop and then every apsp input one after another (interleaved, as the machine is shared); the
medians printed, with the ratios of the medians; not a test: no thresholds.

  python3 tests/bench/batch_graphs.py [--graphs 100000] [--scipy-graphs 10000] [--runs 3]
      [--least 5] [--most 60]

The SciPy loop runs over the first --scipy-graphs graphs and is scaled to --graphs.

  python3 tests/bench/batch_graphs.py --backend=opencl [--device=gpu] [--threads=16]
      [--graphs 1000000]

solves the edge_index inputs on the OpenCL device (src/opencl/batch.c: a work-group per graph)
and on the pthread backend's --threads threads, says whether their arrays are identical, and
prints the library's line of where the device's time went (program, up, kernels, down, and the
whole call with the host's fill, check and packing)."""

import argparse
import logging
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import floyd_warshall as scipy_fw

import apsp


def molecules(rng, count, least=5, most=60):
    counts = rng.integers(least, most + 1, count)
    starts = np.concatenate(([0], np.cumsum(counts)))
    edges = counts * 11 // 10
    graph = np.repeat(np.arange(count), edges)
    src = starts[graph] + (rng.random(graph.size) * counts[graph]).astype(np.int64)
    dst = starts[graph] + (rng.random(graph.size) * counts[graph]).astype(np.int64)
    return counts, np.stack([src, dst]), starts, edges


def csr_list(counts, edge_index, starts, edges):
    first = np.concatenate(([0], np.cumsum(edges)))
    out = []
    for g, n in enumerate(counts):
        s = edge_index[0, first[g]:first[g + 1]] - starts[g]
        t = edge_index[1, first[g]:first[g + 1]] - starts[g]
        out.append(sp.csr_matrix((np.ones(s.size), (s, t)), shape=(n, n)))
    return out


def timed(call):
    """(wall seconds, this process's CPU seconds over all its threads): on a shared machine the
    second says what the work costs whatever the neighbours take."""
    start, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - start, time.process_time() - cpu


def device_against_threads(args, counts, edge_index):
    """The edge_index runs on the OpenCL device against the pthread batch, with their results."""
    logging.basicConfig(format="  %(message)s")
    logging.getLogger("apsp").setLevel(logging.INFO)
    device = apsp.Solver(backend="opencl", device=args.device)
    threads = apsp.Solver(backend="cpu", threads=args.threads)
    print(f"{args.graphs} graphs of 5-60 vertices, E = 1.1 V, undirected, unweighted")
    for dtype in (np.int32, np.float32, np.float64):
        kwargs = dict(edge_index=edge_index, num_nodes=counts, packed=True, dtype=dtype,
                      directed=False, unweighted=True)
        for solver in (device, threads):  # warm-up: the program built or read from the cache
            apsp.floyd_warshall_batch(edge_index=edge_index[:, :100], num_nodes=counts[:3],
                                      dtype=dtype, solver=solver)
        results, seconds = [], []
        for solver in (device, threads):
            out = []
            seconds.append(timed(lambda: out.append(
                apsp.floyd_warshall_batch(solver=solver, **kwargs)))[0])
            results.append(out[0][0] if isinstance(out[0], tuple) else out[0])
        same = all(np.array_equal(a, b) for a, b in zip(results[0], results[1]))
        print(f"{np.dtype(dtype).name} packed: device {seconds[0]:.3f} s, {args.threads or 'all'}"
              f" threads {seconds[1]:.3f} s: {seconds[1] / seconds[0]:.1f}x; identical: {same}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphs", type=int, default=100000)
    parser.add_argument("--scipy-graphs", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--least", type=int, default=5, help="the fewest vertices of a graph")
    parser.add_argument("--most", type=int, default=60, help="the most vertices of a graph")
    parser.add_argument("--backend", choices=("cpu", "opencl"), default="cpu")
    parser.add_argument("--device", default=None, help="--backend=opencl: apsp.Solver's device")
    parser.add_argument("--threads", type=int, default=0,
                        help="--backend=opencl: the pthread batch's threads (0: every core)")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    counts, edge_index, starts, edges = molecules(rng, args.graphs, args.least, args.most)
    if args.backend == "opencl":
        device_against_threads(args, counts, edge_index)
        return
    graphs = csr_list(counts, edge_index, starts, edges)
    few = graphs[: args.scipy_graphs]
    scale = args.graphs / len(few)
    runs = {
        "edge_index, int32, packed": dict(edge_index=edge_index, num_nodes=counts, packed=True,
                                          dtype=np.int32),
        f"edge_index, int32, padded (B, {args.most}, {args.most})": dict(
            edge_index=edge_index, num_nodes=counts, dtype=np.int32),
        "edge_index, float64 (SciPy's type), packed": dict(edge_index=edge_index,
                                                           num_nodes=counts, packed=True),
        "CSR list, int32, packed": dict(graphs=graphs, packed=True, dtype=np.int32),
        "CSR list, float64, packed": dict(graphs=graphs, packed=True),
    }
    apsp.floyd_warshall_batch(edge_index=edge_index[:, :100], num_nodes=counts[:3])  # warm-up
    times = {"scipy": []}
    for _ in range(args.runs):
        wall, cpu = timed(lambda: [scipy_fw(g, directed=False, unweighted=True) for g in few])
        times["scipy"].append((wall * scale, cpu * scale))
        for name, kwargs in runs.items():
            times.setdefault(name, []).append(timed(lambda: apsp.floyd_warshall_batch(
                directed=False, unweighted=True, **kwargs)))
    median = {k: np.median(np.array(v), axis=0) for k, v in times.items()}
    scipy_seconds, scipy_cpu = median["scipy"]
    print(f"{args.graphs} graphs of {args.least}-{args.most} vertices, E = 1.1 V, undirected, "
          f"unweighted; "
          f"medians of {args.runs} interleaved runs")
    print(f"scipy loop over CSR matrices: {scipy_seconds:.3f} s, cpu {scipy_cpu:.3f} s "
          f"({scipy_seconds / args.graphs * 1e6:.1f} us a graph)")
    for name in runs:
        seconds, cpu = median[name]
        print(f"apsp {name}: {seconds:.3f} s, {scipy_seconds / seconds:.1f}x the scipy loop; "
              f"cpu {cpu:.3f} s, {scipy_cpu / cpu:.1f}x its cpu")

if __name__ == "__main__":
    main()
