"""The text readers cut a long body into up to --threads pieces, each parsed on a thread of its
own (src/formats/read.c, text.c), whatever cores the machine has. Edge lists, DIMACS and Matrix
Market files of 5 to 17 MiB, read with --threads=3, 7 and 16 (3 to 16 pieces), must give SciPy's
distances (scipy.sparse.csgraph.floyd_warshall).

    pytest_main.py test_threads.py --apsp=APSP [--exe thread-count LIB] [-k "not acceptance"]

The graphs have few vertices (V <= 600, so the solves are cheap) and many repeated edges. Every
weight lies in [1000, 2000), so a path of two edges is longer than any edge: each pair's distance
is the least weight of its own lines where it has some, and a line lost or altered at a cut
shows in the result.

--exe thread-count LIB (thread_count.c beside this script, preloaded): one thread count for every
parallel part (test_thread_counts, skipped without it).
On a 17 MiB edge list with V = 1500 (its edges checked and placed, its 9 MB output written, all
on several threads by default), --threads=1 must start no more threads than a run on a tiny
input (the command's own helpers: signals, the output's room), and --threads=16 at least 30
more (the pthread backend's 15 helpers and 15 for the reader's pieces; the checks, copies and
writes add more), whatever cores the machine has.

test_acceptance (suite slow; `-k "not acceptance"` leaves it out): issue 24's case at a smaller
V: an edge list of about 6 MB, V = 3000, E = 400000, with --threads=16, against
scipy.sparse.csgraph.dijkstra from 200 seeded sources, and byte-identical to the output of
--threads=1.

Needs NumPy and SciPy; skips where they are missing.
"""
import os
import subprocess
import tempfile

import pytest
from harness import need

np = need("numpy", "python3-numpy")
sparse = need("scipy.sparse", "python3-scipy")
csgraph = need("scipy.sparse.csgraph", "python3-scipy")
dijkstra, floyd_warshall = csgraph.dijkstra, csgraph.floyd_warshall

INF = 1073741823

THREADS = [3, 7, 16]
WEIGHTS = (1000, 2000)  # two edges weigh more than one


def random_edges(rng, v, e):
    """e edges over v vertices (self-loops and repeats included), weights in WEIGHTS."""
    return (rng.integers(0, v, e), rng.integers(0, v, e), rng.integers(*WEIGHTS, e))


def lines_of(fmt, u, t, w):
    return "".join(fmt % line for line in zip(u.tolist(), t.tolist(), w.tolist()))


# Each writer returns the edges the file means, as (sources, targets, weights) arrays, and an
# option apsp needs for it (or None).

def write_edgelist(path, v, u, t, w):
    body = lines_of("%d %d %d\n", u, t, w)
    half = body.index("\n", len(body) // 2) + 1
    with open(path, "w") as f:  # comments inside the body; no newline after the last line
        f.write("# a long edge list\n" + body[:half] + "% halfway\n" + body[half:-1])
    return [(u, t, w)], "--vertices=%d" % v


def write_dimacs(path, v, u, t, w):
    with open(path, "w", newline="") as f:  # CRLF line ends
        f.write("c a long DIMACS file\r\np sp %d %d\r\n" % (v, len(u)))
        f.write(lines_of("a %d %d %d\r\n", u + 1, t + 1, w))
    return [(u, t, w)], None


def write_mtx(path, v, u, t, w):
    """symmetric: each entry i >= j is the edge both ways."""
    low, high = np.minimum(u, t), np.maximum(u, t)
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate integer symmetric\n%d %d %d\n" % (
            v, v, len(u)))
        f.write(lines_of("%d %d %d\n", high + 1, low + 1, w))
    return [(low, high, w), (high, low, w)], None


FORMATS = [  # writer, extension, V, edges (about 17, 8 and 5 MiB)
    (write_edgelist, "txt", 600, 1_400_000),
    (write_dimacs, "gr", 500, 560_000),
    (write_mtx, "mtx", 400, 400_000),
]


def least_weights(v, edges):
    """The dense matrix of each pair's least weight (inf: no edge; self-loops ignored)."""
    m = np.full((v, v), np.inf)
    for u, t, w in edges:
        np.minimum.at(m, (u, t), w.astype(np.float64))
    np.fill_diagonal(m, np.inf)
    return m


def run_apsp(apsp, threads, path, out, extra):
    args = [apsp, "--backend=cpu", "--threads=%d" % threads] + ([extra] if extra else [])
    p = subprocess.run(args + [path, out], capture_output=True, timeout=300)
    if p.returncode != 0:
        return "exit %d: %s" % (p.returncode, p.stderr.decode(errors="replace").strip())
    return None


def apsp_distances(out):
    d = np.load(out).astype(np.float64)
    d[d == INF] = np.inf
    return d


@pytest.fixture(scope="module", params=range(len(FORMATS)), ids=[f[1] for f in FORMATS])
def graph_file(request):
    """(the file, its extension, V, E, the option apsp needs, SciPy's distances)."""
    write, ext, v, e = FORMATS[request.param]
    with tempfile.TemporaryDirectory(prefix="apsp-threads-") as work:
        path = os.path.join(work, "g." + ext)
        u, t, w = random_edges(np.random.default_rng([24, request.param]), v, e)
        edges, extra = write(path, v, u, t, w)
        # SciPy's dense input: inf is no edge (no weight is 0, which would be none too).
        yield path, ext, v, e, extra, floyd_warshall(least_weights(v, edges))


@pytest.mark.parametrize("threads", THREADS)
def test_formats(apsp_path, work, graph_file, threads):
    path, ext, v, e, extra, expected = graph_file
    out = os.path.join(work, "d.npy")
    problem = run_apsp(apsp_path, threads, path, out, extra)
    if not problem and not np.array_equal(apsp_distances(out), expected):
        bad = np.argwhere(apsp_distances(out) != expected)
        problem = "%d cells differ from SciPy's, first %s" % (len(bad), bad[0].tolist())
    assert not problem, "%s, %.1f MiB, V = %d, E = %d, --threads=%d: %s" % (
        ext, os.path.getsize(path) / 2**20, v, e, threads, problem)


def threads_started(apsp, work, shim, threads, path, v):
    count = os.path.join(work, "count")
    env = dict(os.environ, LD_PRELOAD=shim, APSP_TEST_THREAD_COUNT=count)
    # Under AddressSanitizer (CI's second build) the preloaded library comes before its runtime.
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                 "verify_asan_link_order=0"]))
    out = os.path.join(work, "d.npy")
    args = [apsp, "--backend=cpu", "--threads=%d" % threads, "--vertices=%d" % v, path, out]
    p = subprocess.run(args, capture_output=True, timeout=300, env=env)
    if p.returncode != 0:
        pytest.fail("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                          p.stderr.decode(errors="replace").strip()),
                    pytrace=False)
    with open(count) as f:
        return int(f.read())


def test_thread_counts(apsp_path, work, exe, check):
    if "thread-count" not in exe:
        pytest.skip("no --exe thread-count LIB")
    apsp, shim, rng = apsp_path, exe["thread-count"], np.random.default_rng(24)
    tiny, large, v = os.path.join(work, "tiny.txt"), os.path.join(work, "large.txt"), 1500
    with open(tiny, "w") as f:
        f.write("0 1 5\n")
    write_edgelist(large, v, *random_edges(rng, v, 1_400_000))
    helpers = threads_started(apsp, work, shim, 1, tiny, v)
    for threads, least, most in [(1, 0, helpers), (16, helpers + 2 * 15, None)]:
        started = threads_started(apsp, work, shim, threads, large, v)
        bad = started < least or (most is not None and started > most)
        check(not bad, "--threads=%d on %.1f MiB, V = %d: %d threads started (a tiny input: %d)"
              % (threads, os.path.getsize(large) / 2**20, v, started, helpers))


def test_acceptance(apsp_path, work):
    apsp, rng = apsp_path, np.random.default_rng(24)
    v, e, sources = 3000, 400_000, 200
    path = os.path.join(work, "g.txt")
    u, t, w = random_edges(rng, v, e)
    with open(path, "w") as f:
        f.write(lines_of("%d %d %d\n", u, t, w))
    outs = {n: os.path.join(work, "d%d.npy" % n) for n in (16, 1)}
    problem = None
    for threads, out in outs.items():
        problem = problem or run_apsp(apsp, threads, path, out, "--vertices=%d" % v)
    if not problem:
        least = least_weights(v, [(u, t, w)])
        finite = np.isfinite(least)
        graph = sparse.csr_matrix((least[finite], np.nonzero(finite)), shape=(v, v))
        rows = rng.choice(v, sources, replace=False)
        expected = dijkstra(graph, indices=rows)
        got = apsp_distances(outs[16])[rows]
        if not np.array_equal(got, expected):
            problem = "%d cells of %d rows differ from SciPy's dijkstra" % (
                int((got != expected).sum()), sources)
    if not problem:
        with open(outs[16], "rb") as a, open(outs[1], "rb") as b:
            if a.read() != b.read():
                problem = "--threads=16 and --threads=1 wrote different bytes"
    assert not problem, "acceptance, edge list of %.1f MB, V = %d, E = %d, --threads=16: %s" % (
        os.path.getsize(path) / 1e6, v, e, problem)

