"""apsp against SciPy and NetworkX on random graphs written in every input format, with every
output format read back by NumPy (and the Matrix Market inputs by scipy.io.mmread).

    pytest_main.py test_scipy.py --apsp=APSP [--opt=graphs=N] [--opt=seed=S|time]
        [--opt=networkx-every=K] [--opt=backends=cpu,opencl]

Each graph (V up to 40, repeated edges, self-loops, zero weights; about a third with negative
weights: reweighted by vertex potentials, which makes no negative cycle but zero-weight ones, or
of random sign, which often makes negative cycles) gets a random input format
(hw3, DIMACS, Matrix Market written by scipy.io.mmwrite or by hand, edge lists written by
networkx.write_edgelist or by hand, weighted or not), sometimes through standard input, random
--undirected / --unweighted, and a random output format (hw3, .npy, text), sometimes to
standard output. The distances must equal scipy.sparse.csgraph.floyd_warshall's on the same
graph (directed=, unweighted= as the options say) and, every K-th graph, NetworkX's (Bellman-Ford
where a weight is negative). Where SciPy raises NegativeCycleError, apsp must exit 7 with "negative
cycle" and write nothing.

Needs NumPy, SciPy and NetworkX (tools/setup.sh installs python3-numpy python3-scipy
python3-networkx; tests/support/pytest_main.py looks for them under /usr/bin/python3 too); skips
without them, unless APSP_TEST_REQUIRE_DEVICE=1 (CI: every skip is a failure) makes that a
failure. So does a run on --opt=backends=opencl without an OpenCL CPU device.
"""
import io
import os
import random
import struct
import subprocess
import tempfile

import pytest
from harness import EXIT_NEGATIVE_CYCLE, need, seed_of, skip

INF = 1073741823
GRAPHS = 60  # --opt=graphs=N

nx = need("networkx", "python3-networkx")
np = need("numpy", "python3-numpy")
scipy = need("scipy", "python3-scipy")
need("scipy.io", "python3-scipy")
need("scipy.sparse", "python3-scipy")
csgraph = need("scipy.sparse.csgraph", "python3-scipy")
NegativeCycleError, floyd_warshall = csgraph.NegativeCycleError, csgraph.floyd_warshall


def random_graph(rng):
    """V and a list of (u, v, w): repeated pairs, self-loops and zero weights included; negative
    weights in about a third (|w| within the rule, (V - 1) |w| < INF)."""
    v = rng.choice([1, 2, 3, rng.randint(4, 12), rng.randint(13, 40)])
    e = rng.randint(0, 3 * v)
    top = rng.choice([1, 9, 100, (INF - 1) // max(v - 1, 1)])
    mode = rng.choice(["plain"] * 3 + ["potentials", "potentials", "signed"])
    potential = [rng.randint(0, top // 3) for _ in range(v)]
    edges = []
    for _ in range(e):
        if edges and rng.random() < 0.15:
            a, b, _ = rng.choice(edges)  # a repeated pair with another weight
        else:
            a, b = rng.randrange(v), rng.randrange(v)
        if mode == "potentials":  # every cycle weighs its w0 >= 0: none negative, some zero
            w0 = 0 if rng.random() < 0.3 else rng.randint(0, top // 3)
            w = w0 + potential[a] - potential[b]
        elif mode == "signed":
            w = rng.randint(-(top // 2), top)
        else:
            w = rng.randint(0, top)
        edges.append((a, b, w))
    return v, edges


def reference(v, edges, undirected, unweighted):
    """floyd_warshall on the graph as SciPy sees it: explicit entries of a sparse matrix (zero
    weights are edges), the least weight of repeated pairs, self-loops without effect. None where
    SciPy raises NegativeCycleError."""
    best = {}
    for a, b, w in edges:
        w = 1 if unweighted else w
        if a != b:
            best[(a, b)] = min(w, best.get((a, b), w))
    if not best:
        d = np.full((v, v), np.inf)
        np.fill_diagonal(d, 0)
        return d
    rows, cols = zip(*best)
    data = np.array(list(best.values()), dtype=np.float64)
    m = scipy.sparse.csr_matrix((data, (rows, cols)), shape=(v, v))
    try:
        # directed=False takes the smaller weight of i->j and j->i for both directions.
        return floyd_warshall(m, directed=not undirected, unweighted=unweighted)
    except NegativeCycleError:
        return None


def networkx_distances(v, edges, undirected, unweighted):
    g = nx.Graph() if undirected else nx.DiGraph()
    g.add_nodes_from(range(v))
    for a, b, w in edges:
        w = 1 if unweighted else w
        if a != b and (not g.has_edge(a, b) or g[a][b]["weight"] > w):
            g.add_edge(a, b, weight=w)
    d = np.full((v, v), np.inf)
    negative = any(w < 0 for _, _, w in g.edges(data="weight"))
    lengths_of = nx.all_pairs_bellman_ford_path_length if negative else \
        nx.all_pairs_dijkstra_path_length
    for src, lengths in lengths_of(g, weight="weight"):
        for dst, length in lengths.items():
            d[src, dst] = length
    return d


# ---- writing the graph in each input format ---------------------------------------------------

def write_hw3(path, v, edges, rng):
    with open(path, "wb") as f:
        f.write(struct.pack("<2i", v, len(edges)))
        f.write(b"".join(struct.pack("<3i", *t) for t in edges))
    return "hw3"


def write_dimacs(path, v, edges, rng):
    lines = ["c random graph", "p sp %d %d" % (v, len(edges))]
    lines += ["a %d %d %d" % (a + 1, b + 1, w) for a, b, w in edges]
    end = rng.choice(["\n", "\r\n"])
    with open(path, "w", newline="") as f:
        f.write(end.join(lines) + rng.choice([end, ""]))
    return "dimacs"


def write_mtx_by_hand(path, v, edges, rng):
    field = rng.choice(["integer", "real"])
    value = (lambda w: "%d" % w) if field == "integer" else rng.choice(
        [lambda w: "%.16e" % w, lambda w: "%d.0" % w, lambda w: "%d" % w])
    lines = ["%%%%MatrixMarket matrix coordinate %s general" % field, "% by hand",
             "%d %d %d" % (v, v, len(edges))]
    lines += ["%d %d %s" % (a + 1, b + 1, value(w)) for a, b, w in edges]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return "mtx"


def write_mtx_scipy(path, v, edges, rng, symmetric=False):
    """scipy.io.mmwrite of the graph without repeated pairs (a sparse matrix sums them); read back
    with scipy.io.mmread, which must give the same matrix."""
    best = {}
    for a, b, w in edges:
        if symmetric:
            a, b = max(a, b), min(a, b)
        best[(a, b)] = min(w, best.get((a, b), w))
    edges[:] = [(a, b, w) for (a, b), w in best.items()]
    rows = [a for a, _, _ in edges]
    cols = [b for _, b, _ in edges]
    vals = [w for _, _, w in edges]
    dtype = rng.choice([np.int64, np.float64])
    if symmetric:  # both triangles, built entry by entry: a sum of matrices drops zeros
        off = [(a, b, w) for a, b, w in edges if a != b]
        rows += [b for _, b, _ in off]
        cols += [a for a, _, _ in off]
        vals += [w for _, _, w in off]
    m = scipy.sparse.coo_matrix((np.array(vals, dtype=dtype), (rows, cols)), shape=(v, v))
    scipy.io.mmwrite(path, m, symmetry="symmetric" if symmetric else "general")
    back = scipy.io.mmread(path).toarray()
    if not np.array_equal(back, m.toarray()):
        raise AssertionError("scipy.io.mmread does not give back what mmwrite wrote: %s" % path)
    return "mtx"


def write_edgelist_by_hand(path, v, edges, rng, weighted=True):
    lines = ["# random graph", "%% V = %d" % v]
    sep = rng.choice([" ", "\t"])
    for a, b, w in edges:
        lines.append(sep.join(str(x) for x in ((a, b, w) if weighted else (a, b))))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return "edgelist"


def write_edgelist_networkx(path, v, edges, rng):
    g = nx.MultiDiGraph()
    for a, b, w in edges:
        g.add_edge(a, b, weight=float(w) if rng.random() < 0.5 else w)
    nx.write_edgelist(g, path, data=["weight"])
    return "edgelist"


# ---- one graph ------------------------------------------------------------------------------

def read_output(path_or_bytes, fmt, v):
    if fmt == "npy":
        data = np.load(io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else
                       path_or_bytes, mmap_mode=None if isinstance(path_or_bytes, bytes) else "r")
        assert data.dtype == np.int32 and data.shape == (v, v), (data.dtype, data.shape)
        d = data.astype(np.float64)
    elif fmt == "text":
        text = path_or_bytes.decode() if isinstance(path_or_bytes, bytes) else open(
            path_or_bytes).read()
        d = np.loadtxt(io.StringIO(text), ndmin=2) if v > 0 else np.zeros((0, 0))
    else:
        raw = path_or_bytes if isinstance(path_or_bytes, bytes) else open(path_or_bytes, "rb").read()
        d = np.frombuffer(raw, dtype="<i4").reshape(v, v).astype(np.float64)
    d[d == INF] = np.inf
    return d


def one_graph(apsp, work, rng, index, use_networkx, backends):
    v, edges = random_graph(rng)
    undirected = rng.random() < 0.3
    unweighted = rng.random() < 0.2
    choice = rng.choice(["hw3", "dimacs", "mtx-hand", "mtx-scipy", "mtx-symmetric",
                         "edgelist", "edgelist-unweighted", "edgelist-networkx"])
    ext = {"hw3": ".in", "dimacs": ".gr", "edgelist": ".txt", "edgelist-unweighted": ".edges",
           "edgelist-networkx": ".el"}.get(choice, ".mtx")
    inp = os.path.join(work, "g%d%s" % (index, ext))
    symmetric = False
    if choice == "hw3":
        write_hw3(inp, v, edges, rng)
    elif choice == "dimacs":
        write_dimacs(inp, v, edges, rng)
    elif choice == "mtx-hand":
        write_mtx_by_hand(inp, v, edges, rng)
    elif choice in ("mtx-scipy", "mtx-symmetric"):
        symmetric = choice == "mtx-symmetric"
        write_mtx_scipy(inp, v, edges, rng, symmetric)
    elif choice == "edgelist-networkx":
        write_edgelist_networkx(inp, v, edges, rng)
    else:
        weighted = choice == "edgelist"
        write_edgelist_by_hand(inp, v, edges, rng, weighted)
        if not weighted:
            edges = [(a, b, 1) for a, b, _ in edges]
    fmt_name = {"hw3": "hw3", "dimacs": "dimacs"}.get(choice, "mtx" if "mtx" in choice else
                                                       "edgelist")
    backend = rng.choice(backends)
    if backend == "opencl":  # PoCL's CPU device in the tests; round depths across the kernels
        args = ["--backend=opencl", "-d", "cpu", "--tile=%d" % rng.choice([8, 16, 32, 64])]
    else:
        args = ["--backend=cpu", "--threads=2"]
    if fmt_name == "edgelist":
        args.append("--vertices=%d" % v)  # the largest id + 1 may be less than V
    if undirected:
        args.append("--undirected")
    if unweighted:
        args.append("--unweighted")
    stdin = None
    if rng.random() < 0.15:
        args.append("--input-format=" + fmt_name)
        with open(inp, "rb") as f:
            stdin = f.read()
        args.append("-")
    else:
        args.append(inp)
    out_fmt = rng.choice(["hw3", "npy", "text"])
    to_stdout = rng.random() < 0.15
    if to_stdout:
        args += ["--output-format=" + out_fmt, "-"]
    else:
        out = os.path.join(work, "o%d%s" % (index, {"hw3": ".out", "npy": ".npy",
                                                     "text": ".txt"}[out_fmt]))
        args.append(out)
    what = "graph %d: V=%d E=%d %s %s%s%s -> %s%s" % (
        index, v, len(edges), " ".join(args[:4]), choice, " undirected" if undirected else "",
        " unweighted" if unweighted else "", out_fmt, " (stdin)" if stdin is not None else "")
    p = subprocess.run([apsp] + args, input=stdin, capture_output=True, timeout=120)
    if symmetric:
        edges = edges + [(b, a, w) for a, b, w in edges]
    want = reference(v, edges, undirected, unweighted)
    if want is None:  # SciPy: NegativeCycleError
        wrote = p.stdout if to_stdout else os.path.exists(out)
        if p.returncode != EXIT_NEGATIVE_CYCLE or b"negative cycle: vertex" not in p.stderr \
                or wrote:
            return "%s: SciPy finds a negative cycle; apsp exit %d%s: %s" % (
                what, p.returncode, ", and it wrote output" if wrote else "",
                p.stderr.decode(errors="replace"))
        os.unlink(inp)
        return None
    if p.returncode != 0:
        return "%s: apsp exit %d: %s" % (what, p.returncode, p.stderr.decode(errors="replace"))
    got = read_output(p.stdout if to_stdout else out, out_fmt, v)
    if not np.array_equal(got, want):
        bad = np.argwhere(got != want)[0]
        return "%s: cell %s is %s, SciPy says %s" % (what, tuple(bad), got[tuple(bad)],
                                                     want[tuple(bad)])
    if use_networkx:
        nxd = networkx_distances(v, edges, undirected, unweighted)
        if not np.array_equal(got, nxd):
            bad = np.argwhere(got != nxd)[0]
            return "%s: cell %s is %s, NetworkX says %s" % (what, tuple(bad), got[tuple(bad)],
                                                            nxd[tuple(bad)])
    if not to_stdout:
        os.unlink(out)
    os.unlink(inp)
    return None


@pytest.fixture(scope="module")
def backends(apsp_path, opt):
    """--opt=backends (cpu, opencl or cpu,opencl: each graph's); opencl skips (or fails where
    APSP_TEST_REQUIRE_DEVICE=1) without an OpenCL CPU device, as tests/opencl do."""
    chosen = opt.get("backends", "cpu").split(",")
    if "opencl" in chosen:
        with tempfile.TemporaryDirectory(prefix="apsp-scipy-") as work:
            probe = os.path.join(work, "probe.in")
            write_hw3(probe, 1, [], None)
            p = subprocess.run([apsp_path, "--backend=opencl", "-d", "cpu", probe, "/dev/null"],
                               capture_output=True, timeout=120)
        if p.returncode != 0:
            skip("no OpenCL CPU device: %s" % p.stderr.decode(errors="replace").strip())
    print("NumPy %s, SciPy %s, NetworkX %s" % (np.__version__, scipy.__version__, nx.__version__))
    return chosen


def test_graph(apsp_path, work, backends, opt, request, case):
    """One random graph against SciPy (and every --opt=networkx-every=K-th, default 3, NetworkX)."""
    seed = seed_of(request.config)
    rng = random.Random(seed * 1000003 + case)
    use_networkx = case % int(opt.get("networkx-every", "3")) == 0
    problem = one_graph(apsp_path, work, rng, case, use_networkx, backends)
    assert not problem, "seed %d, graph %d: %s" % (seed, case, problem)
