#!/usr/bin/env python3
"""A random geometric road-like graph (issue 38's second proxy beside grid_graph.py's grid): V
points uniform in a square whose side makes their mean spacing about 100 m (seed 3), each joined
both ways to its 3 nearest neighbours, weights the distances in whole metres (at least 1); S
sources spread evenly over the ids. With --long-arcs=N, N more arcs both ways between random
points (seed 5) weighing 20 to 100 km, as motorways do: (V - 1) max w passes 2^31 while the sum of
the V - 1 largest weights stays far below it, so the rows stay int32 by the path bound
(src/sssp/narrow.c). Needs NumPy and SciPy (its k-d tree).

    geometric_graph.py V SOURCES GRAPH.hw3 SOURCES.txt [--long-arcs=N]
"""
import argparse

import numpy as np
from grid_graph import spread_sources, write_hw3, write_sources
from scipy.spatial import cKDTree

SPACING_M = 100.0  # the mean distance between neighbouring points
NEIGHBOURS = 3


def geometric(v):
    """The edges (src, dst, w) of the V points' 3-nearest-neighbour graph, both ways, each pair
    once, as int32 arrays."""
    rng = np.random.default_rng(3)
    points = rng.uniform(0.0, SPACING_M * np.sqrt(v), size=(v, 2))
    dist, near = cKDTree(points).query(points, k=NEIGHBOURS + 1)  # (itself first)
    src = np.repeat(np.arange(v, dtype=np.int64), NEIGHBOURS)
    dst = near[:, 1:].ravel().astype(np.int64)
    w = np.maximum(1, np.rint(dist[:, 1:].ravel())).astype(np.int64)
    low, high = np.minimum(src, dst), np.maximum(src, dst)
    _, first = np.unique(low * v + high, return_index=True)  # a mutual pair once
    low, high, w = low[first], high[first], w[first]
    return (np.concatenate([low, high]).astype(np.int32),
            np.concatenate([high, low]).astype(np.int32), np.concatenate([w, w]).astype(np.int32))


def motorways(v, count):
    """`count` arcs both ways between random points, 20 to 100 km each."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, v, size=count, dtype=np.int32)
    b = rng.integers(0, v, size=count, dtype=np.int32)
    w = rng.integers(20000, 100001, size=count, dtype=np.int32)
    return np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([w, w])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vertices", type=int)
    parser.add_argument("sources", type=int)
    parser.add_argument("graph")
    parser.add_argument("sources_file")
    parser.add_argument("--long-arcs", type=int, default=0)
    args = parser.parse_args()
    src, dst, w = geometric(args.vertices)
    if args.long_arcs:
        more = motorways(args.vertices, args.long_arcs)
        src, dst, w = (np.concatenate([x, y]) for x, y in zip((src, dst, w), more))
    write_hw3(args.graph, args.vertices, src, dst, w)
    write_sources(args.sources_file, spread_sources(args.vertices, args.sources))
    print(f"geometric graph: V = {args.vertices}, E = {src.size}, max w = {int(w.max())}, "
          f"(V - 1) max w = {(args.vertices - 1) * int(w.max()):.3g}")


if __name__ == "__main__":
    main()
