#!/usr/bin/env python3
"""The device batch against the 16-thread batch on many molecule-sized graphs, padded and packed,
int32 and float32 (issue 42.3: the pipelined chunks on a GPU, where the tests' PoCL runs use few):
    python3 tests/gpu/batch_check.py [GRAPHS]      (apsp importable; default 300000 graphs)
Prints, per type, whether the arrays are identical and, where not, the first graphs that
differ. Run on the 2 x H200 host on 2026-11-28 (tests/gpu/results/2026-11-28-h200x2-s5-suite.txt).
"""
import sys

import numpy as np

import apsp


def molecules(graphs, rng):
    """(counts, edge_index): graphs of 5-60 vertices with E = 1.1 V random arcs each, numbered
    graph after graph."""
    counts = rng.integers(5, 61, graphs)
    starts = np.concatenate(([0], np.cumsum(counts)))
    graph = np.repeat(np.arange(graphs), counts * 11 // 10)
    ends = [rng.integers(0, counts[graph]) + starts[graph] for _ in range(2)]
    return counts, np.stack(ends)


def solve_all(counts, edge_index, dtype):
    """{(engine, packed): distances} for the 16 host threads and the GPU."""
    solvers = {"threads": apsp.Solver(backend="cpu", threads=16),
               "device": apsp.Solver(device="gpu")}
    return {(name, packed): apsp.floyd_warshall_batch(
                edge_index=edge_index, num_nodes=counts, dtype=dtype, directed=False,
                unweighted=True, solver=solver, packed=packed)[0]
            for name, solver in solvers.items() for packed in (False, True)}


def main():
    graphs = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    counts, edge_index = molecules(graphs, np.random.default_rng(5))
    for dtype in (np.int32, np.float32):
        out = solve_all(counts, edge_index, dtype)
        threads, device = out[("threads", False)], out[("device", False)]
        differing = np.unique(np.argwhere(threads != device)[:, 0])
        print(f"{np.dtype(dtype).name} padded: threads == device: {differing.size == 0}; graphs "
              f"differing: {differing[:10].tolist()} of sizes {counts[differing[:10]].tolist()}")
        packed = all(np.array_equal(a, b) for a, b in zip(out[("threads", True)],
                                                          out[("device", True)]))
        print(f"{np.dtype(dtype).name} packed: threads == device: {packed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
