#!/usr/bin/env python3
"""The 2-D grid road proxy of issue 27, which bench_sssp.py and tests/gpu/sssp.sh run on: side x
side vertices, each joined to its 4 neighbours both ways with weights 1 to 1000 at random
(seed 1), and S sources spread evenly over the ids. With --long-arcs=N,W, N more arcs both ways
of weight W between random vertices (seed 2), as motorways on roads: (V - 1) W passes 2^31 while
the sum of the V - 1 largest weights need not (src/sssp/narrow.c). With --max-weight=W the
weights are 1 to W instead (100000 on the 1000 x 1000 grid: int64 rows by the path bound); with
--real they are fractional, uniform in (0, 1000] to 3 decimals, and GRAPH is a text edge list
("u v w" a line; hw3 holds integers only). With --potentials=P each vertex gets a potential
p(u) in [0, P) (seed 4) and every weight w becomes w + p(u) - p(t): negative weights without a
negative cycle (a cycle's sum is unchanged), whose shortest paths are the grid's, for Johnson
(tests/gpu/sssp.sh's johnson case). Needs NumPy only.

    grid_graph.py SIDE SOURCES GRAPH SOURCES.txt [--long-arcs=N,W] [--max-weight=W] [--real]
                  [--potentials=P]
"""
import argparse

import numpy as np


def grid(side, top=1000):
    """The edges (src, dst, w) of the side x side grid, both ways, as int32 arrays."""
    rng = np.random.default_rng(1)
    ids = np.arange(side * side, dtype=np.int32).reshape(side, side)
    right = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    down = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    src = np.concatenate([right[0], right[1], down[0], down[1]])
    dst = np.concatenate([right[1], right[0], down[1], down[0]])
    w = rng.integers(1, top + 1, size=src.size, dtype=np.int32)
    return src, dst, w


def long_arcs(v, count, weight):
    """`count` arcs of `weight` between random vertices, both ways, as int32 arrays."""
    rng = np.random.default_rng(2)
    a = rng.integers(0, v, size=count, dtype=np.int32)
    b = rng.integers(0, v, size=count, dtype=np.int32)
    w = np.full(2 * count, weight, dtype=np.int32)
    return np.concatenate([a, b]), np.concatenate([b, a]), w


def spread_sources(v, count):
    return np.linspace(0, v - 1, count).astype(np.int64)


def write_hw3(path, v, src, dst, w):
    with open(path, "wb") as f:
        np.array([v, src.size], dtype="<i4").tofile(f)
        np.stack([src, dst, w], axis=1).astype("<i4").tofile(f)


def write_sources(path, sources):
    with open(path, "w") as f:
        f.writelines("%d\n" % s for s in sources)


def write_text(path, src, dst, w):
    """A text edge list of fractional weights (3 decimals, none 0)."""
    with open(path, "w") as f:
        f.writelines("%d %d %.3f\n" % e for e in zip(src.tolist(), dst.tolist(), w.tolist()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("side", type=int)
    parser.add_argument("sources", type=int)
    parser.add_argument("graph")
    parser.add_argument("sources_file")
    parser.add_argument("--long-arcs")
    parser.add_argument("--max-weight", type=int, default=1000)
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--potentials", type=int, default=0)
    args = parser.parse_args()
    side = args.side
    src, dst, w = grid(side, args.max_weight)
    if args.long_arcs:
        n, weight = (int(x) for x in args.long_arcs.split(","))
        more = long_arcs(side * side, n, weight)
        src, dst, w = (np.concatenate([x, y]) for x, y in zip((src, dst, w), more))
    if args.potentials:
        p = np.random.default_rng(4).integers(0, args.potentials, size=side * side)
        w = (w.astype(np.int64) + p[src] - p[dst]).astype(np.int32)
    if args.real:
        fractions = np.random.default_rng(3).integers(1, 1000001, size=w.size) / 1000.0
        write_text(args.graph, src, dst, fractions)
    else:
        write_hw3(args.graph, side * side, src, dst, w)
    write_sources(args.sources_file, spread_sources(side * side, args.sources))


if __name__ == "__main__":
    main()
