#!/usr/bin/env python3
"""The 2-D grid road proxy of issue 27, which bench_sssp.py and tests/gpu/sssp.sh run on: side x
side vertices, each joined to its 4 neighbours both ways with weights 1 to 1000 at random
(seed 1), and S sources spread evenly over the ids. With --long-arcs=N,W, N more arcs both ways
of weight W between random vertices (seed 2), as motorways on roads: (V - 1) W passes 2^31 while
the sum of the V - 1 largest weights need not (src/sssp/narrow.c). Needs NumPy only.

    grid_graph.py SIDE SOURCES GRAPH.hw3 SOURCES.txt [--long-arcs=N,W]
"""
import sys

import numpy as np


def grid(side):
    """The edges (src, dst, w) of the side x side grid, both ways, as int32 arrays."""
    rng = np.random.default_rng(1)
    ids = np.arange(side * side, dtype=np.int32).reshape(side, side)
    right = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    down = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    src = np.concatenate([right[0], right[1], down[0], down[1]])
    dst = np.concatenate([right[1], right[0], down[1], down[0]])
    w = rng.integers(1, 1001, size=src.size, dtype=np.int32)
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


def main():
    if len(sys.argv) not in (5, 6) or (len(sys.argv) == 6 and
                                      not sys.argv[5].startswith("--long-arcs=")):
        sys.exit("usage: grid_graph.py SIDE SOURCES GRAPH.hw3 SOURCES.txt [--long-arcs=N,W]")
    side, count = int(sys.argv[1]), int(sys.argv[2])
    src, dst, w = grid(side)
    if len(sys.argv) == 6:
        n, weight = (int(x) for x in sys.argv[5].split("=", 1)[1].split(","))
        more = long_arcs(side * side, n, weight)
        src, dst, w = (np.concatenate([x, y]) for x, y in zip((src, dst, w), more))
    write_hw3(sys.argv[3], side * side, src, dst, w)
    write_sources(sys.argv[4], spread_sources(side * side, count))


if __name__ == "__main__":
    main()
