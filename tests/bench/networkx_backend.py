#!/usr/bin/env python3
"""NetworkX's own against backend="apsp" on the same road-like grid (grid_graph.py's, weights 1
to 1000, a networkx.DiGraph), in one process, runs of the two interleaved: the median of R runs
of each, the ratio, and where apsp's time went (conversion, search, building the dicts) in a
first call on a fresh graph (a later call reuses the converted edges from NetworkX's cache).

Needs the package installed (pip install .) and NetworkX >= 3.2. Not a test: no thresholds.
  python3 tests/bench/networkx_backend.py [--all-pairs-side 32] [--single-side 300] [--runs 5]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).parent))
from grid_graph import grid  # noqa: E402

from apsp import _nx_search  # noqa: E402

nx.config.warnings_to_ignore.add("cache")


def road(side):
    G = nx.DiGraph()
    G.add_nodes_from(range(side * side))
    src, dst, w = grid(side)
    G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    return G


def seconds(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def compare(label, G, ours, theirs, runs):
    assert ours() == theirs()
    times = {"networkx": [], "apsp": []}
    for _ in range(runs):
        times["networkx"].append(seconds(theirs))
        times["apsp"].append(seconds(ours))
    m = {k: statistics.median(v) for k, v in times.items()}
    print(f"{label}, V = {len(G)}, E = {G.number_of_edges()}: networkx {m['networkx']:.3f} s, "
          f"apsp {m['apsp']:.3f} s ({m['networkx'] / m['apsp']:.1f}x)")


def first_call_parts(G, all_pairs):
    """The backend's steps timed apart: the edges, the searches (256 sources at a time for all
    pairs, as all_pairs_dijkstra_path_length runs them), the dicts."""
    start = time.perf_counter()
    edges = _nx_search.edges_of(G, "weight")
    converted = time.perf_counter()
    if all_pairs:
        rows = list(_nx_search.rows_in_chunks(edges, "D"))
    else:
        d, r, _ = _nx_search.search(edges, [0], "D")
        rows = [(0, d[0], r[0], None)]
    searched = time.perf_counter()
    for s, d, r, _ in rows:
        _nx_search.lengths(edges, d, r, [s])
    built = time.perf_counter()
    print(f"  apsp's parts: conversion {converted - start:.3f} s, search "
          f"{searched - converted:.3f} s, dicts {built - searched:.3f} s")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--all-pairs-side", type=int, default=32)
    p.add_argument("--single-side", type=int, default=300)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    G = road(a.all_pairs_side)
    compare("dict(all_pairs_dijkstra_path_length)", G,
            lambda: dict(nx.all_pairs_dijkstra_path_length(G, backend="apsp")),
            lambda: dict(nx.all_pairs_dijkstra_path_length(G)), a.runs)
    first_call_parts(road(a.all_pairs_side), all_pairs=True)
    G = road(a.single_side)
    compare("single_source_dijkstra_path_length", G,
            lambda: nx.single_source_dijkstra_path_length(G, 0, backend="apsp"),
            lambda: nx.single_source_dijkstra_path_length(G, 0), a.runs)
    first_call_parts(road(a.single_side), all_pairs=False)


if __name__ == "__main__":
    main()
