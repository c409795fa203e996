#!/usr/bin/env python3
"""The narrow path's bound (src/sssp/narrow.c): a grid of short edges with a few long arcs, as
roads have motorways, where (V - 1) max w passes 2^31 but no simple path can (the sum of the
V - 1 largest weights stays below it): dijkstra, johnson and bellman-ford must search it on
32-bit distances and say so in --stats-json's choice, naming the bound; with arcs long enough
that the sum passes 2^31 - 1 they must keep 64-bit distances. Either way the int64 rows equal
SciPy's shortest_path(indices=...).

    test_sssp_long_arcs.py APSP

Needs NumPy and SciPy: re-runs itself under /usr/bin/python3 where this Python lacks them, and
skips (exit 77) where none has them.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_sssp_scipy import grid_pairs, read_output, scipy_graph  # noqa: E402

import numpy as np  # noqa: E402  (test_sssp_scipy made sure of it)
from scipy.sparse.csgraph import shortest_path  # noqa: E402

SIDE = 60
SOURCES = 40


def long_arc_graph(rng, arc_weight, arcs):
    """A SIDE x SIDE grid, weights 1 to 1000 both ways, and `arcs` long arcs between far
    corners' neighbourhoods, each of arc_weight."""
    v = SIDE * SIDE
    edges = [(u, t, rng.randint(1, 1000)) for u, t in grid_pairs(rng, v)]
    for _ in range(arcs):
        u, t = rng.randrange(v // 10), v - 1 - rng.randrange(v // 10)
        edges += [(u, t, arc_weight), (t, u, arc_weight)]
    return v, edges


def check(apsp, work, name, v, edges, width, failures):
    graph = os.path.join(work, name + ".el")
    with open(graph, "w") as f:
        f.writelines("%d %d %d\n" % e for e in edges)
    sources = list(range(0, v, v // SOURCES))[:SOURCES]
    want = shortest_path(scipy_graph(v, edges), method="D", indices=sources)
    spec = ",".join(map(str, sources))
    for method in ("dijkstra", "johnson", "bellman-ford"):
        out = os.path.join(work, "%s-%s.npy" % (name, method))
        r = subprocess.run([apsp, "-q", "--stats-json", "--backend=cpu", "--method=" + method,
                            "--sources=" + spec, graph, out], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("%s %s: exit %d: %s" % (name, method, r.returncode, r.stderr))
            continue
        choice = json.loads(r.stderr.strip().splitlines()[-1])["choice"]
        said = "%s distances (sum of the V - 1 largest w" % width
        if said not in choice:
            failures.append("%s %s: the choice says %r, not %r" % (name, method, choice, said))
        got = read_output(out, "npy", len(sources), v)
        if np.load(out).dtype != np.int64 or not np.array_equal(got, want):
            failures.append("%s %s: the rows differ from SciPy's" % (name, method))


def main():
    apsp = sys.argv[1]
    rng = random.Random(38)
    failures = []
    with tempfile.TemporaryDirectory() as work:
        # (V - 1) max w = 3599 x 2 000 000 passes 2^31; 6 arcs and 3594 edges of at most 1000
        # keep the sum near 1.5e7.
        v, edges = long_arc_graph(rng, 2000000, 3)
        check(apsp, work, "few-arcs", v, edges, "32-bit", failures)
        # Three arcs of 8e8 both ways: the sum passes 2^31 - 1.
        v, edges = long_arc_graph(rng, 800000000, 3)
        check(apsp, work, "long-arcs", v, edges, "64-bit", failures)
    for f in failures:
        print(f)
    print("test_sssp_long_arcs: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
