"""apsp --sources --method against scipy.sparse.csgraph.shortest_path(method=..., indices=...)
on random graphs (repeated edges), 2-D grids and power-law graphs, with positive weights,
negative ones without negative cycles (vertex potentials) and signed ones (negative cycles
often), every output format read back, with --predecessors and --path.

    pytest_main.py test_sssp_scipy.py --apsp=APSP [--opt=graphs=N] [--opt=seed=S]

Integer weights within int32's rule and past it (int64 output) must give equal distances, real
ones distances within tolerance() of SciPy's; where SciPy raises NegativeCycleError apsp must
exit 7 and write nothing; dijkstra on a negative weight must be refused (exit 2), where SciPy
only warns.
Needs NumPy and SciPy (skips without them; tests/support/pytest_main.py looks for them under
/usr/bin/python3 too). test_sssp_device*.py and test_sssp_long_arcs.py use its graphs.
"""
import os
import subprocess
import warnings

import pytest
from harness import need

INF = 1073741823
INF64 = 2 ** 62 - 1
METHODS = {"auto": "auto", "fw": "FW", "dijkstra": "D", "johnson": "J", "bellman-ford": "BF"}
GRAPHS = 150  # --opt=graphs=N

np = need("numpy", "python3-numpy")
sparse = need("scipy.sparse", "python3-scipy")
csgraph = need("scipy.sparse.csgraph", "python3-scipy")
NegativeCycleError, shortest_path = csgraph.NegativeCycleError, csgraph.shortest_path


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


def weigh(rng, v, pairs, mode, kind):
    """(u, t, w) for every pair that is no self-loop, w != 0 (SciPy's sparse zeros are no edges):
    positive, by potentials (negative weights, no negative cycle) or signed; of `kind`: int32
    (within its rule), int64 (past int32's rule, so apsp picks int64) or float64 (fractions)."""
    top = {"int32": rng.choice([9, 1000, (INF - 1) // max(v - 1, 1) // 2]),
           "int64": rng.choice([2 ** 34, 2 ** 40]),
           "float64": rng.choice([1.0, 1000.0, 1e9])}[kind]
    number = ((lambda a, b: rng.uniform(a, b)) if kind == "float64" else
              (lambda a, b: rng.randint(int(a), int(b))))
    potential = [number(0, top) for _ in range(v)]
    edges = []
    for u, t in pairs:
        if u == t:
            continue
        if mode == "positive":
            w = number(1 if kind != "float64" else top / 1000, top)
        elif mode == "potentials":
            w = number(1 if kind != "float64" else top / 1000, top) + potential[u] - potential[t]
        else:
            w = number(-top // 4 if kind != "float64" else -top / 4, top)
        if w != 0 and (kind != "int32" or abs(w) * max(v - 1, 1) < INF):
            edges.append((u, t, w))
    return edges


def tolerance(kind, v, edges):
    """How far apsp's distance may be from SciPy's: 0 for integers (exact); for float64 1e-9 V
    max|w|, above apsp's bound (src/sssp/on_threads.c: (2k + 3) eps times the path's |w| + |h(u)|
    + |h(t)|, every |h| at most (V - 1) max|w|) and SciPy's own rounding, for V <= 150."""
    if kind != "float64" or not edges:
        return 0.0
    return 1e-9 * v * max(abs(w) for _, _, w in edges)


def scipy_graph(v, edges):
    least = {}
    for u, t, w in edges:
        least[(u, t)] = min(w, least.get((u, t), w))
    rows = [u for u, _ in least] or []
    cols = [t for _, t in least] or []
    return sparse.csr_matrix((list(least.values()), (rows, cols)), shape=(v, v),
                                   dtype=np.float64)


def read_output(path, fmt, rows, v):
    """The rows as float64, inf where there is no path (APSP_INF, APSP_INF64, "inf")."""
    if fmt == "npy":
        a = np.load(path)
        if a.dtype.kind == "f":
            return a.astype(np.float64)
        return np.where(a >= (INF if a.dtype == np.int32 else INF64), np.inf, a.astype(np.float64))
    if fmt == "txt":
        text = open(path).read().split()
        return np.array([float(x) for x in text], np.float64).reshape(rows, v)
    a = np.fromfile(path, dtype="<i4").reshape(rows, v)
    return np.where(a == INF, np.inf, a.astype(np.float64))


def bad_trees(pred, dist, sources, graph, tol):
    """The rows of pred that are no shortest-path tree of their source under dist (float64, inf
    for no path) and the graph's least weights, within tol: SciPy's predecessors may pick other
    paths."""
    w = graph.toarray()
    has = graph.copy()
    has.data[:] = 1
    has = has.toarray() > 0
    bad = 0
    for r, s in enumerate(sources):
        row, d = pred[r], dist[r]
        ok = row[s] == -9999
        for t in range(len(row)):
            if t == s or np.isinf(d[t]):
                ok &= t == s or row[t] == -9999
                continue
            p = row[t]
            ok &= 0 <= p < len(row) and has[p, t] and abs(d[p] + w[p, t] - d[t]) <= tol
        bad += not ok
    return bad


def bad_path(line, u, t, dist, graph, tol):
    """Why --path's line is wrong (None: right): a real path from u to t of the length dist
    (inf: "no path") over the graph's least weights, within tol."""
    if np.isinf(dist):
        return None if line == "no path from %d to %d" % (u, t) else "expected no path"
    head, _, walk = line.partition(": ")
    if not head.startswith("length ") or abs(float(head[7:]) - dist) > tol:
        return "expected length %r" % dist
    path = [int(x) for x in walk.split(" -> ")]
    w = graph.toarray()
    if path[0] != u or path[-1] != t:
        return "the path does not go from %d to %d" % (u, t)
    if any(graph[a, b] == 0 for a, b in zip(path, path[1:])):
        return "a step of the path is no edge"
    total = sum(w[a, b] for a, b in zip(path, path[1:]))
    return None if abs(total - dist) <= tol else "the path's edges sum to %r" % total


def check_path_outside(apsp, work, graph_path, v):
    """--path whose source is not among --sources is refused (exit 2)."""
    if v < 2:
        return None
    run = subprocess.run([apsp, "-q", "--backend=cpu", "--vertices=%d" % v, "--sources=1",
                          "--path=0,1", graph_path,
                          os.path.join(work, "outside.npy")], capture_output=True, text=True)
    ok = run.returncode == 2 and "not one of --sources" in run.stderr
    return None if ok else "--path outside the sources: rc %d %s" % (run.returncode, run.stderr)


def test_graph(apsp_path, rng, work, case):
    """One random graph against SciPy (the outcome printed: equal, cycle, refused)."""
    print(check_one(apsp_path, rng, work, case))


def check_one(apsp, rng, work, case):
    v = rng.choice([1, 2, rng.randint(3, 20), rng.randint(21, 150)])
    shape = rng.choice(["random", "grid", "power-law"])
    mode = rng.choice(["positive", "positive", "potentials", "signed"])
    kind = rng.choice(["int32", "int32", "int64", "float64"])
    pairs = {"random": random_pairs, "grid": grid_pairs, "power-law": power_law_pairs}[shape](
        rng, v)
    edges = weigh(rng, v, pairs, mode, kind)
    sources = [rng.randrange(v) for _ in range(rng.randint(1, 2 * v))]
    method = rng.choice(list(METHODS))
    fmt = rng.choice(["npy", "txt"] + (["bin"] if kind == "int32" else []))  # (hw3 is int32)
    graph_path = os.path.join(work, "g%d.txt" % case)
    with open(graph_path, "w") as f:
        f.writelines("%d %d %r\n" % e for e in edges)
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
    what = "case %d: %s V=%d E=%d %s %s %s S=%d -> %s" % (case, shape, v, len(edges), mode, kind,
                                                       method, len(sources), fmt)
    negative = any(w < 0 for _, _, w in edges)
    if method == "dijkstra" and negative:
        assert run.returncode == 2, "%s: rc %d, expected 2: %s" % (what, run.returncode,
                                                                  run.stderr)
        return "refused"
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
        assert ok, "%s: SciPy found a negative cycle, apsp: rc %d %s" % (
            what, run.returncode, run.stderr)
        return "cycle"
    if run.returncode != 0:
        pytest.fail("%s: rc %d: %s" % (what, run.returncode, run.stderr))
    expected = expected.reshape(len(sources), v)
    got = read_output(out, fmt, len(sources), v)
    tol = tolerance(kind, v, edges)
    finite = np.isfinite(expected)
    gap = np.abs(np.where(finite & np.isfinite(got), got, 0) - np.where(finite, expected, 0))
    differ = (np.isfinite(got) != finite) | (gap > tol)
    if np.any(differ):
        pytest.fail("%s: %d cells differ (tolerance %g)" % (what, int(np.sum(differ)), tol))
    if path:
        row = expected[sources.index(path[0])]
        wrong = bad_path(run.stdout.strip(), path[0], path[1], row[path[1]],
                         scipy_graph(v, edges), tol) or check_path_outside(apsp, work,
                                                                          graph_path, v)
        if wrong:
            pytest.fail("%s: --path=%d,%d: %s: %r" % (what, path[0], path[1], wrong,
                                                           run.stdout))
    if pred_path:
        bad = bad_trees(np.load(pred_path), got, sources, scipy_graph(v, edges), tol)
        if bad:
            pytest.fail("%s: %d predecessor rows are no shortest-path tree" % (what, bad))
        return "equal, with predecessors"
    return "equal"

