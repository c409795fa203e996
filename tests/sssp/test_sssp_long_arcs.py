"""The path bound (base/graph.h: weights_path_bound): a grid of short edges with a few long arcs,
as roads have motorways, where (V - 1) max w passes 2^31 but no simple path can (the sum of the
V - 1 largest weights stays below 2^30 - 1): dijkstra, johnson and bellman-ford must search it on
32-bit distances, say so in --stats-json's choice, naming the bound (and its kernels: the rows'
type), and write int32 rows
(apsp_graph_sources_dtype), which PoCL's CPU device, where there is one, computes too
(--backend=opencl -d cpu --method=bellman-ford); with arcs long enough that the sum passes
2^31 - 1 they must keep 64-bit distances and int64 rows. Either way the rows equal SciPy's
shortest_path(indices=...).

    pytest_main.py test_sssp_long_arcs.py --apsp=APSP

Needs NumPy and SciPy (skips without them).
"""
import json
import os
import random
import subprocess

import pytest
from harness import has_device
from test_sssp_scipy import grid_pairs, np, read_output, scipy_graph, shortest_path

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


def check_graph(apsp, work, name, v, edges, width, check):
    graph = os.path.join(work, name + ".el")
    with open(graph, "w") as f:
        f.writelines("%d %d %d\n" % e for e in edges)
    sources = list(range(0, v, v // SOURCES))[:SOURCES]
    want = shortest_path(scipy_graph(v, edges), method="D", indices=sources)
    spec = ",".join(map(str, sources))
    rows = np.int32 if width == "32-bit" else np.int64
    runs = [("--backend=cpu", "--method=" + m) for m in ("dijkstra", "johnson", "bellman-ford")]
    if width == "32-bit" and has_device(apsp, "cpu"):
        runs.append(("--backend=opencl", "-d", "cpu", "--method=bellman-ford"))
    for run in runs:
        what = "%s %s" % (name, " ".join(run))
        out = os.path.join(work, "%s-%d.npy" % (name, len(run)))
        r = subprocess.run([apsp, "-q", "--stats-json", *run, "--sources=" + spec, graph, out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            check.fail("%s: exit %d: %s" % (what, r.returncode, r.stderr))
            continue
        stats = json.loads(r.stderr.strip().splitlines()[-1])
        said = "%s distances (sum of the V - 1 largest w" % width
        if "-d" in run:
            if stats["backend"] != "opencl":
                check.fail("%s: ran on %r, not the device" % (what, stats["backend"]))
        elif said not in stats["choice"]:
            check.fail("%s: the choice says %r, not %r" % (what, stats["choice"], said))
        if stats["kernels"] != rows.__name__:
            check.fail("%s: --stats-json's kernels say %r, not %r" % (
                what, stats["kernels"], rows.__name__))
        if np.load(out).dtype != rows:
            check.fail("%s: %s rows, not %s" % (what, np.load(out).dtype, rows.__name__))
        if not np.array_equal(read_output(out, "npy", len(sources), v), want):
            check.fail("%s: the rows differ from SciPy's" % what)


# (V - 1) max w = 3599 x 2 000 000 passes 2^31; 6 arcs and 3593 edges of at most 1000 keep the
# sum near 1.6e7, below 2^30 - 1: int32 rows too. Three arcs of 8e8 both ways: the sum passes
# 2^31 - 1.
@pytest.mark.parametrize("name, arc_weight, width, seed", [
    ("few-arcs", 2000000, "32-bit", 38), ("long-arcs", 800000000, "64-bit", 39)])
def test_long_arcs(apsp_path, work, check, name, arc_weight, width, seed):
    v, edges = long_arc_graph(random.Random(seed), arc_weight, 3)
    check_graph(apsp_path, work, name, v, edges, width, check)
