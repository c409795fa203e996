#!/usr/bin/env python3
"""The 2-D grid road proxy of issue 27, which bench_sssp.py and tests/gpu/sssp.sh run on: side x
side vertices, each joined to its 4 neighbours both ways with weights 1 to 1000 at random
(seed 1), and S sources spread evenly over the ids. Needs NumPy only.

    grid_graph.py SIDE SOURCES GRAPH.hw3 SOURCES.txt
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
    if len(sys.argv) != 5:
        sys.exit("usage: grid_graph.py SIDE SOURCES GRAPH.hw3 SOURCES.txt")
    side, count = int(sys.argv[1]), int(sys.argv[2])
    src, dst, w = grid(side)
    write_hw3(sys.argv[3], side * side, src, dst, w)
    write_sources(sys.argv[4], spread_sources(side * side, count))


if __name__ == "__main__":
    main()
