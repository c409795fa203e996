#!/usr/bin/env python3
"""apsp --sources --method against scipy.sparse.csgraph.shortest_path(method=..., indices=...)
on random graphs (repeated edges), 2-D grids and power-law graphs, with positive weights,
negative ones without negative cycles (vertex potentials) and signed ones (negative cycles
often), every output format read back, with --predecessors and --path.

    test_sssp_scipy.py APSP [--graphs=N] [--seed=S]

Integer distances must be equal; where SciPy raises NegativeCycleError apsp must exit 7 and
write nothing; dijkstra on a negative weight must be refused (exit 2), where SciPy only warns.
Needs NumPy and SciPy: re-runs itself under /usr/bin/python3 where this Python lacks them, and
skips (exit 77) where none has them.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import warnings

INF = 1073741823
METHODS = {"auto": "auto", "fw": "FW", "dijkstra": "D", "johnson": "J", "bellman-ford": "BF"}

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import need_scipy  # noqa: E402

try:
    import numpy as np
    import scipy.sparse
    from scipy.sparse.csgraph import NegativeCycleError, shortest_path
except ImportError as missing:
    need_scipy.missing(missing, "python3-numpy python3-scipy")


def random_pairs(rng, v):
    return [(rng.randrange(v), rng.randrange(v)) for _ in range(rng.randint(0, 4 * v))]


def grid_pairs(rng, v):
    width = max(1, int(v ** 0.5))
    pairs = []
    for u in range(v):
        for t in (u + 1 if (u + 1) % width else None, u + width):
            if t is not None and t < v:
                pairs += [(u, t), (t, u)]
    return pairs


def power_law_pairs(rng, v):
    pairs = []
    for u in range(1, v):
        for _ in range(3):
            to = rng.choice(rng.choice(pairs)) if pairs else 0
            pairs.append((u, to) if rng.random() < 0.5 else (to, u))
    return pairs


def weigh(rng, v, pairs, mode):
    """(u, t, w) for every pair that is no self-loop, w != 0 (SciPy's sparse zeros are no edges):
    positive, by potentials (negative weights, no negative cycle) or signed."""
    top = rng.choice([9, 1000, (INF - 1) // max(v - 1, 1) // 2])
    potential = [rng.randint(0, top) for _ in range(v)]
    edges = []
    for u, t in pairs:
        if u == t:
            continue
        if mode == "positive":
            w = rng.randint(1, top)
        elif mode == "potentials":
            w = rng.randint(1, top) + potential[u] - potential[t]
        else:
            w = rng.randint(-top // 4, top)
        if w != 0 and abs(w) * max(v - 1, 1) < INF:
            edges.append((u, t, w))
    return edges


def scipy_graph(v, edges):
    least = {}
    for u, t, w in edges:
        least[(u, t)] = min(w, least.get((u, t), w))
    rows = [u for u, _ in least] or []
    cols = [t for _, t in least] or []
    return scipy.sparse.csr_matrix((list(least.values()), (rows, cols)), shape=(v, v),
                                   dtype=np.float64)


def read_output(path, fmt, rows, v):
    if fmt == "npy":
        return np.load(path).astype(np.int64)
    if fmt == "txt":
        text = open(path).read().split()
        return np.array([INF if x == "inf" else int(x) for x in text], np.int64).reshape(rows, v)
    return np.fromfile(path, dtype="<i4").astype(np.int64).reshape(rows, v)


def bad_trees(pred, dist, sources, graph):
    """The rows of pred that are no shortest-path tree of their source under dist (int64, INF
    for no path) and the graph's least weights: SciPy's predecessors may pick other paths."""
    w = graph.toarray()
    has = graph.copy()
    has.data[:] = 1
    has = has.toarray() > 0
    bad = 0
    for r, s in enumerate(sources):
        row, d = pred[r], dist[r]
        ok = row[s] == -9999
        for t in range(len(row)):
            if t == s or d[t] == INF:
                ok &= t == s or row[t] == -9999
                continue
            p = row[t]
            ok &= 0 <= p < len(row) and has[p, t] and d[p] + w[p, t] == d[t]
        bad += not ok
    return bad


def bad_path(line, u, t, dist, graph):
    """Why --path's line is wrong (None: right): a real path from u to t of the length dist
    (INF: "no path") over the graph's least weights."""
    if dist == INF:
        return None if line == "no path from %d to %d" % (u, t) else "expected no path"
    head, _, walk = line.partition(": ")
    if head != "length %d" % dist:
        return "expected length %d" % dist
    path = [int(x) for x in walk.split(" -> ")]
    w = graph.toarray()
    if path[0] != u or path[-1] != t:
        return "the path does not go from %d to %d" % (u, t)
    if any(graph[a, b] == 0 for a, b in zip(path, path[1:])):
        return "a step of the path is no edge"
    total = sum(w[a, b] for a, b in zip(path, path[1:]))
    return None if total == dist else "the path's edges sum to %d" % total


def check_path_outside(apsp, work, graph_path, v):
    """--path whose source is not among --sources is refused (exit 2)."""
    if v < 2:
        return None
    run = subprocess.run([apsp, "-q", "--backend=cpu", "--vertices=%d" % v, "--sources=1",
                          "--path=0,1", graph_path,
                          os.path.join(work, "outside.npy")], capture_output=True, text=True)
    ok = run.returncode == 2 and "not one of --sources" in run.stderr
    return None if ok else "--path outside the sources: rc %d %s" % (run.returncode, run.stderr)


def check_one(apsp, rng, work, case):
    v = rng.choice([1, 2, rng.randint(3, 20), rng.randint(21, 150)])
    shape = rng.choice(["random", "grid", "power-law"])
    mode = rng.choice(["positive", "positive", "potentials", "signed"])
    pairs = {"random": random_pairs, "grid": grid_pairs, "power-law": power_law_pairs}[shape](
        rng, v)
    edges = weigh(rng, v, pairs, mode)
    sources = [rng.randrange(v) for _ in range(rng.randint(1, 2 * v))]
    method = rng.choice(list(METHODS))
    fmt = rng.choice(["npy", "txt", "bin"])
    graph_path = os.path.join(work, "g%d.txt" % case)
    with open(graph_path, "w") as f:
        f.writelines("%d %d %d\n" % e for e in edges)
    use_file = rng.random() < 0.3
    spec = ",".join(map(str, sources))
    if use_file:
        ending = rng.choice(["\n", "\r\n"])  # (CRLF lines too)
        with open(os.path.join(work, "s%d" % case), "w", newline="") as f:
            f.writelines("%d%s" % (s, ending) for s in sources)
        spec = "@" + os.path.join(work, "s%d" % case)
    out = os.path.join(work, "o%d.%s" % (case, fmt))
    cmd = [apsp, "-q", "--backend=cpu", "--vertices=%d" % v, "--sources=" + spec,
           "--method=" + method, graph_path, out]
    pred_path = os.path.join(work, "p%d.npy" % case) if rng.random() < 0.4 else None
    if pred_path:
        cmd.insert(1, "--predecessors=" + pred_path)
    path = (rng.choice(sources), rng.randrange(v)) if rng.random() < 0.4 else None
    if path:
        cmd.insert(1, "--path=%d,%d" % path)
    run = subprocess.run(cmd, capture_output=True, text=True)
    what = "case %d: %s V=%d E=%d %s %s S=%d -> %s" % (case, shape, v, len(edges), mode, method,
                                                    len(sources), fmt)
    negative = any(w < 0 for _, _, w in edges)
    if method == "dijkstra" and negative:
        return "refused" if run.returncode == 2 else print("FAIL %s: rc %d, expected 2: %s" % (
            what, run.returncode, run.stderr))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "fw":  # SciPy's FW takes no indices: its rows are picked out
                expected = shortest_path(scipy_graph(v, edges), method="FW")[sources]
            else:
                expected = shortest_path(scipy_graph(v, edges), method=METHODS[method],
                                         indices=sources)
    except NegativeCycleError:
        ok = run.returncode == 7 and "negative cycle" in run.stderr and not os.path.exists(out)
        ok = ok and not (pred_path and os.path.exists(pred_path))
        return "cycle" if ok else print("FAIL %s: SciPy found a negative cycle, apsp: rc %d %s" % (
            what, run.returncode, run.stderr))
    if run.returncode != 0:
        return print("FAIL %s: rc %d: %s" % (what, run.returncode, run.stderr))
    expected = np.where(np.isinf(expected), INF, expected).astype(np.int64)
    got = read_output(out, fmt, len(sources), v)
    if not np.array_equal(got, expected.reshape(len(sources), v)):
        return print("FAIL %s: %d cells differ" % (what, int(np.sum(got != expected))))
    if path:
        row = expected.reshape(len(sources), v)[sources.index(path[0])]
        wrong = bad_path(run.stdout.strip(), path[0], path[1], row[path[1]],
                         scipy_graph(v, edges)) or check_path_outside(apsp, work, graph_path, v)
        if wrong:
            return print("FAIL %s: --path=%d,%d: %s: %r" % (what, path[0], path[1], wrong,
                                                           run.stdout))
    if pred_path:
        bad = bad_trees(np.load(pred_path), got, sources, scipy_graph(v, edges))
        if bad:
            return print("FAIL %s: %d predecessor rows are no shortest-path tree" % (what, bad))
        return "equal, with predecessors"
    return "equal"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("apsp")
    parser.add_argument("--graphs", type=int, default=150)
    parser.add_argument("--seed", default="1")
    args = parser.parse_args()
    seed = random.randrange(1 << 30) if args.seed == "time" else int(args.seed)
    rng = random.Random(seed)
    outcomes = {"equal": 0, "equal, with predecessors": 0, "cycle": 0, "refused": 0, None: 0}
    with tempfile.TemporaryDirectory() as work:
        for case in range(args.graphs):
            outcomes[check_one(args.apsp, rng, work, case)] += 1
    failed = outcomes.pop(None)
    print("%d of %d graphs failed (seed %d); passed: %s" % (failed, args.graphs, seed, outcomes))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
