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
      [--graphs 1000000] [--dtypes int32,float32,float64] [--torch [--torch-device cuda]
      [--torch-chunk 100000]]

solves the edge_index inputs on the OpenCL device (src/opencl/batch.c: a work-group per graph)
and on the pthread backend's --threads threads (packed, medians of --runs after a warm-up), says
whether their arrays are identical, and prints the library's line of where the device's time
went (the program, the host's waits on the device, and the whole call with the host's fill,
check, packing and unpacking); then both padded into one out= array reused from run to run
(allocated and touched once: what a data loader reusing its buffer does). --torch also times
what graphormer-pyg does (int32 and float32 runs): PyTorch's k-loop over the padded (B, Vmax,
Vmax) float32 batch on --torch-device, from edge_index in host memory to a padded array in host
memory made before (the transfers inside the time, as they are for apsp), and compares its
distances with apsp's padded output on the device (inf as apsp's marker). A table last.

  python3 tests/bench/batch_graphs.py --backend=opencl --weights 3 [--device=gpu] [--threads=16]

times weighted graphs instead (int32 weights 1-3, as bond orders; the threads then run their
Floyd-Warshall, where unweighted graphs take breadth-first searches), packed="flat" into a
reused out=, the device against the threads, and whether their distances are identical."""

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


def median_run(call, runs):
    """(the median wall seconds of `runs` calls, the last call's result): each result dropped
    before the next call, so that one batch's arrays (gigabytes at 10^6 graphs) are alive at a
    time."""
    last, seconds = [None], []
    for _ in range(runs):
        last[0] = None
        seconds.append(timed(lambda: last.__setitem__(0, call()))[0])
    result = last[0][0] if isinstance(last[0], tuple) else last[0]
    return float(np.median(seconds)), result


def device_against_threads(args, counts, edge_index):
    """The edge_index runs on the OpenCL device against the pthread batch (and with --torch the
    PyTorch k-loop), with their results; a table last."""
    logging.basicConfig(format="  %(message)s")
    logging.getLogger("apsp").setLevel(logging.INFO)
    device = apsp.Solver(backend="opencl", device=args.device)
    threads = apsp.Solver(backend="cpu", threads=args.threads or None)
    print(f"{args.graphs} graphs of {args.least}-{args.most} vertices, E = 1.1 V, undirected, "
          f"unweighted; medians of {args.runs} runs after a warm-up")
    rows = []
    for name in args.dtypes.split(","):
        dtype = np.dtype(name).type
        kwargs = dict(edge_index=edge_index, num_nodes=counts, packed=True, dtype=dtype,
                      directed=False, unweighted=True)
        for solver in (device, threads):  # warm-up: the program built or read from the cache
            apsp.floyd_warshall_batch(edge_index=edge_index[:, :100], num_nodes=counts[:3],
                                      dtype=dtype, solver=solver)
        results, seconds, library = [], [], []
        for solver in (device, threads):
            took, result = median_run(
                lambda: apsp.floyd_warshall_batch(solver=solver, **kwargs), args.runs)
            seconds.append(took)
            results.append(result)
            library.append((solver.last_report or {}).get("compute_seconds", float("nan")))
        same = all(np.array_equal(a, b) for a, b in zip(results[0], results[1]))
        del results
        print(f"{np.dtype(dtype).name} packed: device {seconds[0]:.3f} s, {args.threads or 'all'}"
              f" threads {seconds[1]:.3f} s: {seconds[1] / seconds[0]:.1f}x; identical: {same}")
        into = [into_reused(args, counts, edge_index, dtype, s) for s in (device, threads)]
        print(f"{np.dtype(dtype).name} padded into a reused out=: device {into[0]:.3f} s, "
              f"threads {into[1]:.3f} s: {into[1] / into[0]:.1f}x")
        flat = [median_run(lambda: apsp.floyd_warshall_batch(
            solver=s, **dict(kwargs, packed="flat")), args.runs)[0] for s in (device, threads)]
        print(f"{np.dtype(dtype).name} flat (packed=\"flat\"): device {flat[0]:.3f} s, "
              f"threads {flat[1]:.3f} s: {flat[1] / flat[0]:.1f}x")
        flat_into = [into_reused(args, counts, edge_index, dtype, s, flat=True)
                     for s in (device, threads)]
        print(f"{np.dtype(dtype).name} flat into a reused out=: device {flat_into[0]:.3f} s, "
              f"threads {flat_into[1]:.3f} s: {flat_into[1] / flat_into[0]:.1f}x")
        row = [np.dtype(dtype).name, seconds[0], library[0], seconds[1], library[1], same, *into,
               *flat, *flat_into]
        if args.torch and dtype in (np.int32, np.float32):
            row += torch_against_device(args, counts, edge_index, dtype, device)
        rows.append(row)
    table(args, rows)


def into_reused(args, counts, edge_index, dtype, solver, flat=False):
    """The median seconds of the padded batch (flat: packed="flat") solved into one out= array,
    allocated and touched once before (what a data loader that reuses its buffer does, and what
    the torch k-loop's timing has: its host tensor made before)."""
    vmax = int(counts.max())
    out = np.ones(int(counts @ counts) if flat else (counts.size, vmax, vmax), dtype=dtype)
    kwargs = dict(edge_index=edge_index, num_nodes=counts, dtype=dtype, directed=False,
                  unweighted=True, solver=solver, out=out, packed="flat" if flat else False)
    return median_run(lambda: apsp.floyd_warshall_batch(**kwargs), args.runs)[0]


def weighted_flat(args, counts, edge_index, weight):
    """Weighted graphs (the threads' Floyd-Warshall, where unweighted ones take their
    breadth-first searches), int32, packed="flat" into one reused out=: the device's and the
    threads' median seconds, and whether their distances are the same."""
    device = apsp.Solver(backend="opencl", device=args.device)
    threads = apsp.Solver(backend="cpu", threads=args.threads or None)
    outs = [np.ones(int(counts @ counts), dtype=np.int32) for _ in range(2)]
    seconds = []
    for solver, out in zip((device, threads), outs):
        kwargs = dict(edge_index=edge_index, edge_weight=weight.astype(np.int32), num_nodes=counts,
                      dtype=np.int32, directed=False, packed="flat", solver=solver, out=out)
        apsp.floyd_warshall_batch(**kwargs)  # warm-up
        seconds.append(median_run(lambda: apsp.floyd_warshall_batch(**kwargs), args.runs)[0])
    print(f"{args.graphs} graphs of {args.least}-{args.most} vertices, E = 1.1 V, undirected, "
          f"int32 weights 1-{args.weights}, flat into a reused out=, medians of {args.runs}: "
          f"device {seconds[0]:.3f} s, {args.threads or 'all'} threads {seconds[1]:.3f} s: "
          f"{seconds[1] / seconds[0]:.1f}x; identical: {np.array_equal(outs[0], outs[1])}")


def table(args, rows):
    threads = f"{args.threads or 'all'}-thread batch"
    head = ["type", "apsp device, whole call (library)", f"apsp {threads} (library)",
            "device vs threads", "device = threads", "padded into a reused out=: device",
            "threads", "device vs threads", "flat: device", "threads", "device vs threads",
            "flat into a reused out=: device", "threads", "device vs threads"]
    if args.torch:
        head += ["apsp device, padded", f"torch k-loop ({args.torch_device})",
                 "device (packed) vs torch", "device (into out=) vs torch",
                 "device (flat) vs torch", "device (flat into out=) vs torch", "torch = apsp"]
    print(f"\n{args.graphs} graphs, packed unless said; seconds (medians of {args.runs}; in "
          "brackets the library's own, of the last run, without the Python call's conversions "
          "and the packed views)")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for (name, dev, dev_library, thr, thr_library, same, dev_into, thr_into, dev_flat, thr_flat,
         dev_flat_into, thr_flat_into, *torch_part) in rows:
        cells = [name, f"{dev:.3f} ({dev_library:.3f})", f"{thr:.3f} ({thr_library:.3f})",
                 f"{thr / dev:.1f}x", str(same)]
        for d, t in ((dev_into, thr_into), (dev_flat, thr_flat), (dev_flat_into, thr_flat_into)):
            cells += [f"{d:.3f}", f"{t:.3f}", f"{t / d:.1f}x"]
        if args.torch:
            cells += ([f"{torch_part[0]:.3f}", f"{torch_part[1]:.3f}"] +
                      [f"{torch_part[1] / d:.1f}x" for d in (dev, dev_into, dev_flat,
                                                             dev_flat_into)] +
                      [str(torch_part[2])] if torch_part else ["-"] * 7)
        print("| " + " | ".join(cells) + " |")


def torch_k_loop(torch, counts, edge_index, vmax, out, args):
    """What graphormer-pyg does on the device: the batch as a padded (B, Vmax, Vmax) float32
    tensor (inf where no edge, 0 on each graph's diagonal) and Vmax steps of
    d = min(d, d[:, :, k] + d[:, k, :]) over every graph at once, in chunks of --torch-chunk
    graphs; from edge_index in host memory to `out`, a (B, Vmax, Vmax) float32 host tensor."""
    dev = torch.device(args.torch_device)
    first = np.concatenate(([0], np.cumsum(counts * 11 // 10)))  # molecules()' edges a graph
    starts = np.concatenate(([0], np.cumsum(counts)))
    edges = torch.from_numpy(edge_index).to(dev)
    sizes = torch.from_numpy(counts).to(dev)
    graph = torch.repeat_interleave(torch.arange(counts.size, device=dev),
                                    torch.from_numpy(first[1:] - first[:-1]).to(dev))
    local = edges - torch.from_numpy(starts[:-1]).to(dev)[graph]
    steps = torch.arange(vmax, device=dev)
    for g0 in range(0, counts.size, args.torch_chunk):
        g1 = min(g0 + args.torch_chunk, counts.size)
        e0, e1 = int(first[g0]), int(first[g1])
        d = torch.full((g1 - g0, vmax, vmax), float("inf"), device=dev)
        gid, s, t = graph[e0:e1] - g0, local[0, e0:e1], local[1, e0:e1]
        d[gid, s, t] = 1.0
        d[gid, t, s] = 1.0
        real = steps[None, :] < sizes[g0:g1, None]  # each graph's own vertices: 0 diagonal
        diagonal = d.diagonal(dim1=1, dim2=2)
        diagonal.copy_(torch.where(real, torch.zeros_like(diagonal), diagonal))
        for k in range(vmax):
            d = torch.minimum(d, d[:, :, k:k + 1] + d[:, k:k + 1, :])
        out[g0:g1].copy_(d)
    if dev.type == "cuda":
        torch.cuda.synchronize()


def torch_against_device(args, counts, edge_index, dtype, device):
    """[apsp device padded seconds, torch k-loop seconds, whether their distances are the same]:
    torch's float32 inf as apsp's marker (int32: apsp.INF32), the padding unreachable in both."""
    import torch

    vmax = int(counts.max())
    out = torch.empty((counts.size, vmax, vmax), dtype=torch.float32)
    few = counts[:50]
    torch_k_loop(torch, few, edge_index[:, :int(np.sum(few * 11 // 10))], vmax,
                 torch.empty((few.size, vmax, vmax)), args)  # warm-up: the device, the kernels
    if args.torch_device.startswith("cuda"):
        torch.cuda.synchronize()
    loop = median_run(lambda: torch_k_loop(torch, counts, edge_index, vmax, out, args),
                      args.runs)[0]
    kwargs = dict(edge_index=edge_index, num_nodes=counts, dtype=dtype, directed=False,
                  unweighted=True, solver=device)
    apsp_padded, dist = median_run(lambda: apsp.floyd_warshall_batch(**kwargs), args.runs)
    same, theirs = True, out.numpy()
    for g0 in range(0, counts.size, 65536):  # (in parts: the arrays may be tens of GB)
        part = theirs[g0:g0 + 65536]
        if dtype == np.int32:  # (not np.where(.., INF32, part): under NumPy 2's rules the
            # marker joins float32 as 2^31, which becomes INT32_MIN in int32)
            whole = np.full(part.shape, apsp.INF32, dtype=np.int32)
            reached = ~np.isinf(part)
            whole[reached] = part[reached].astype(np.int32)
            part = whole
        same = same and np.array_equal(part, dist[g0:g0 + 65536])
    print(f"{np.dtype(dtype).name}: apsp device padded {apsp_padded:.3f} s, torch k-loop on "
          f"{args.torch_device} {loop:.3f} s; the same distances: {same}")
    return [apsp_padded, loop, same]


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
    parser.add_argument("--dtypes", default="int32,float32,float64",
                        help="--backend=opencl: the element types, comma-separated")
    parser.add_argument("--torch", action="store_true",
                        help="--backend=opencl: also PyTorch's batched k-loop (graphormer-pyg's)")
    parser.add_argument("--torch-device", default="cuda", help="--torch: torch's device")
    parser.add_argument("--torch-chunk", type=int, default=100000,
                        help="--torch: graphs a padded tensor at a time")
    parser.add_argument("--weights", type=int, default=0,
                        help="--backend=opencl: instead, int32 weights 1..WEIGHTS (bond orders: 3), "
                             "flat into a reused out=, the device against the threads")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    counts, edge_index, starts, edges = molecules(rng, args.graphs, args.least, args.most)
    if args.backend == "opencl" and args.weights:
        weighted_flat(args, counts, edge_index, rng.integers(1, args.weights + 1, edges.sum()))
        return
    if args.backend == "opencl":
        device_against_threads(args, counts, edge_index)
        return
    graphs = csr_list(counts, edge_index, starts, edges)
    few = graphs[: args.scipy_graphs]
    scale = args.graphs / len(few)
    runs = {
        "edge_index, int32, packed": dict(edge_index=edge_index, num_nodes=counts, packed=True,
                                          dtype=np.int32),
        "edge_index, int32, flat": dict(edge_index=edge_index, num_nodes=counts, packed="flat",
                                        dtype=np.int32),
        f"edge_index, int32, padded (B, {args.most}, {args.most})": dict(
            edge_index=edge_index, num_nodes=counts, dtype=np.int32),
        "edge_index, float64 (SciPy's type), packed": dict(edge_index=edge_index,
                                                           num_nodes=counts, packed=True),
        "CSR list, int32, packed": dict(graphs=graphs, packed=True, dtype=np.int32),
        "CSR list, int32, flat": dict(graphs=graphs, packed="flat", dtype=np.int32),
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
