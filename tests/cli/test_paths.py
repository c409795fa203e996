"""apsp --predecessors and --path against SciPy on random graphs in every input format.

    pytest_main.py test_paths.py --apsp=APSP [--opt=graphs=N] [--opt=seed=S|time]

Each graph comes from test_scipy.py's generator and writers (hw3, DIMACS, Matrix Market by hand
and by scipy.io.mmwrite, symmetric too, edge lists by hand and by NetworkX; repeated edges,
self-loops, zero weights), with random --undirected / --unweighted, sometimes through standard
input. apsp writes the distances and the predecessor matrix (.npy, raw int32, or standard
output) and prints one --path. Predecessors may differ from SciPy's where several shortest paths
exist, so they are checked for validity: -9999 exactly where SciPy's
floyd_warshall(return_predecessors=True) has -9999, and from every other cell the chain of
predecessors from j goes back to i over edges of the graph whose weights sum to d(i,j). The
--path line must name such a path (or say "no path" where SciPy has none).
"""
import io
import os
import random
import re
import subprocess

import test_scipy as ts  # (skips the file without SciPy)
from harness import seed_of

np = ts.np
GRAPHS = 40  # --opt=graphs=N
NONE = -9999


def effective_edges(v, edges, undirected, unweighted):
    """{(a, b): least weight} as the solve sees the graph: no self-loops, --unweighted, and
    --undirected's both directions."""
    best = {}
    for a, b, w in edges:
        w = 1 if unweighted else w
        pairs = [(a, b), (b, a)] if undirected else [(a, b)]
        for p in pairs:
            if p[0] != p[1]:
                best[p] = min(w, best.get(p, w))
    return best


def scipy_reference(v, best, undirected, unweighted):
    if not best:
        d = np.full((v, v), np.inf)
        np.fill_diagonal(d, 0)
        return d, np.full((v, v), NONE, dtype=np.int32)
    rows, cols = zip(*best)
    data = np.array(list(best.values()), dtype=np.float64)
    m = ts.scipy.sparse.csr_matrix((data, (rows, cols)), shape=(v, v))
    # best already holds both directions for --undirected: directed=True on it is the same graph.
    d, p = ts.floyd_warshall(m, directed=True, unweighted=unweighted, return_predecessors=True)
    return d, p


def check_predecessors(pred, d, sp_pred, best, v):
    """None, or the first problem."""
    if pred.shape != (v, v):
        return "predecessor matrix of shape %s" % (pred.shape,)
    none = pred == NONE
    if not np.array_equal(none, sp_pred == NONE):
        i, j = np.argwhere(none != (sp_pred == NONE))[0]
        return "pred(%d, %d) = %d, SciPy has %d" % (i, j, pred[i, j], sp_pred[i, j])
    for i in range(v):
        for j in range(v):
            if none[i, j]:
                continue
            at, total, steps = j, 0, 0
            while at != i:
                k = int(pred[i, at])
                if (k, at) not in best:
                    return "pred(%d, %d) = %d: no edge %d -> %d" % (i, at, k, k, at)
                total += best[(k, at)]
                at, steps = k, steps + 1
                if steps > v:
                    return "the predecessors from %d back to %d loop" % (j, i)
            if total != d[i, j]:
                return "the path %d -> %d by the predecessors weighs %d, d = %s" % (
                    i, j, total, d[i, j])
    return None


def check_path_line(line, u, t, d, best):
    m = re.fullmatch(r"length (\d+): (\d+(?: -> \d+)*)", line)
    if d[u, t] == np.inf:
        return None if line == "no path from %d to %d" % (u, t) else "--path: %r, expected no path" % line
    if not m:
        return "--path=%d,%d printed %r" % (u, t, line)
    verts = [int(x) for x in m.group(2).split(" -> ")]
    if verts[0] != u or verts[-1] != t or int(m.group(1)) != d[u, t]:
        return "--path=%d,%d printed %r, d = %s" % (u, t, line, d[u, t])
    total = 0
    for a, b in zip(verts, verts[1:]):
        if (a, b) not in best:
            return "--path=%d,%d printed %r: no edge %d -> %d" % (u, t, line, a, b)
        total += best[(a, b)]
    if total != d[u, t] or (u == t and len(verts) != 1):
        return "--path=%d,%d printed %r, whose edges weigh %d" % (u, t, line, total)
    return None


def one_graph(apsp, work, rng, index):
    v, edges = ts.random_graph(rng)
    if rng.random() < 0.3:  # many ties and zero-weight cycles
        edges = [(a, b, rng.randint(0, 1)) for a, b, _ in edges]
    undirected = rng.random() < 0.3
    unweighted = rng.random() < 0.2
    choice = rng.choice(["hw3", "dimacs", "mtx-hand", "mtx-scipy", "mtx-symmetric", "edgelist",
                         "edgelist-unweighted", "edgelist-networkx"])
    ext = {"hw3": ".in", "dimacs": ".gr", "edgelist": ".txt", "edgelist-unweighted": ".edges",
           "edgelist-networkx": ".el"}.get(choice, ".mtx")
    inp = os.path.join(work, "g%d%s" % (index, ext))
    symmetric = choice == "mtx-symmetric"
    if choice == "hw3":
        ts.write_hw3(inp, v, edges, rng)
    elif choice == "dimacs":
        ts.write_dimacs(inp, v, edges, rng)
    elif choice == "mtx-hand":
        ts.write_mtx_by_hand(inp, v, edges, rng)
    elif choice in ("mtx-scipy", "mtx-symmetric"):
        ts.write_mtx_scipy(inp, v, edges, rng, symmetric)
    elif choice == "edgelist-networkx":
        ts.write_edgelist_networkx(inp, v, edges, rng)
    else:
        weighted = choice == "edgelist"
        ts.write_edgelist_by_hand(inp, v, edges, rng, weighted)
        if not weighted:
            edges = [(a, b, 1) for a, b, _ in edges]
    fmt_name = {"hw3": "hw3", "dimacs": "dimacs"}.get(
        choice, "mtx" if "mtx" in choice else "edgelist")
    args = ["--backend=cpu", "--threads=%d" % rng.choice([1, 2, 3])]
    if fmt_name == "edgelist":
        args.append("--vertices=%d" % v)
    if undirected:
        args.append("--undirected")
    if unweighted:
        args.append("--unweighted")
    pred_kind = rng.choice(["npy", "bin", "bin", "stdout"])
    u, t = rng.randrange(v), rng.randrange(v)
    want_path = pred_kind != "stdout" and rng.random() < 0.8
    pred_path = os.path.join(work, "p%d.%s" % (index, pred_kind))
    args.append("--predecessors=" + ("-" if pred_kind == "stdout" else pred_path))
    if want_path:
        args.append("--path=%d,%d" % (u, t))
    stdin = None
    if rng.random() < 0.15:
        args.append("--input-format=" + fmt_name)
        with open(inp, "rb") as f:
            stdin = f.read()
        args.append("-")
    else:
        args.append(inp)
    out = os.path.join(work, "o%d.npy" % index)
    args.append(out)
    what = "graph %d: V=%d E=%d %s%s%s, predecessors %s%s" % (
        index, v, len(edges), choice, " undirected" if undirected else "",
        " unweighted" if unweighted else "", pred_kind, " (stdin)" if stdin is not None else "")
    p = subprocess.run([apsp] + args, input=stdin, capture_output=True, timeout=120)
    if symmetric:
        edges = edges + [(b, a, w) for a, b, w in edges]
    best = effective_edges(v, edges, undirected, unweighted)
    try:
        d, sp_pred = scipy_reference(v, best, undirected, unweighted)
    except ts.NegativeCycleError:  # negative weights (test_scipy's generator): exit 7, no files
        wrote = [f for f in (out, pred_path) if os.path.exists(f)]
        if p.returncode != ts.EXIT_NEGATIVE_CYCLE or wrote or (pred_kind == "stdout" and p.stdout):
            return "%s: SciPy finds a negative cycle; apsp exit %d, wrote %s: %s" % (
                what, p.returncode, wrote, p.stderr.decode(errors="replace"))
        os.unlink(inp)
        return None
    if p.returncode != 0:
        return "%s: apsp exit %d: %s" % (what, p.returncode, p.stderr.decode(errors="replace"))
    got = ts.read_output(out, "npy", v)
    if not np.array_equal(got, d):
        return "%s: the distances differ from SciPy's" % what
    if pred_kind == "npy":
        pred = np.load(pred_path)
        if pred.dtype != np.int32:
            return "%s: predecessors of dtype %s" % (what, pred.dtype)
    else:
        raw = p.stdout if pred_kind == "stdout" else open(pred_path, "rb").read()
        if len(raw) != 4 * v * v:
            return "%s: %d bytes of predecessors, expected %d" % (what, len(raw), 4 * v * v)
        pred = np.frombuffer(raw, dtype="<i4").reshape(v, v)
    problem = check_predecessors(pred, d, sp_pred, best, v)
    if not problem and want_path:
        lines = p.stdout.decode().splitlines()
        problem = check_path_line(lines[0] if len(lines) == 1 else repr(lines), u, t, d, best)
    for f in (inp, out, pred_path):
        if os.path.exists(f):
            os.unlink(f)
    return "%s: %s" % (what, problem) if problem else None


def test_cli_errors(apsp_path, work, check):
    """Refusals: exit 2 with one line, nothing written."""
    apsp = apsp_path
    g = os.path.join(work, "e.txt")
    with open(g, "w") as f:
        f.write("0 1 4\n1 2 0\n2 1 0\n")
    out = os.path.join(work, "e.out")
    cases = [
        (["--path=0,3"], "the graph's vertices are 0 to 2"),
        (["--path=0"], "expected two vertex numbers"),
        (["--path=-1,2"], "expected two vertex numbers"),
        (["--path=1,2,3"], "expected two vertex numbers"),
        (["--predecessors=-", "--path=0,1"], "standard output already takes"),
        (["--predecessors=" + out], "the same file as OUTPUT"),
    ]
    for extra, message in cases:
        p = subprocess.run([apsp, "--backend=cpu"] + extra + [g, out], capture_output=True)
        err = p.stderr.decode()
        check(p.returncode == 2 and message in err and not os.path.exists(out),
              "%s: exit %d, %r" % (extra, p.returncode, err))
    p = subprocess.run([apsp, "--backend=cpu", "--predecessors=" + os.path.join(work, "no", "p"),
                        g, out], capture_output=True)
    check(p.returncode == 4 and not os.path.exists(out),
          "--predecessors into a missing directory: exit %d" % p.returncode)
    # --stats-json and -v say how long the derivation took.
    p = subprocess.run([apsp, "--backend=cpu", "--stats-json", "-v", "--path=0,2", g, out],
                       capture_output=True)
    err = p.stderr.decode()
    check(not (p.returncode != 0 or p.stdout.decode() != "length 4: 0 -> 1 -> 2\n"
               or not re.search(r'"predecessors_s":\d', err)
               or "predecessors derived in" not in err),
          "--path with -v --stats-json: exit %d, %r, %r" % (p.returncode, p.stdout.decode(), err))
    p = subprocess.run([apsp, "--backend=cpu", "--stats-json", g, out], capture_output=True)
    check('"predecessors_s":null' in p.stderr.decode(),
          "--stats-json without paths: %r" % p.stderr.decode())


def test_graph(apsp_path, work, request, case):
    """One random graph's predecessors and --path against SciPy."""
    seed = seed_of(request.config)
    problem = one_graph(apsp_path, work, random.Random(seed * 1000003 + case), case)
    assert not problem, "seed %d, graph %d: %s" % (seed, case, problem)
