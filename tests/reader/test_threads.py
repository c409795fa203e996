#!/usr/bin/env python3
"""The text readers cut a long body into up to --threads pieces, each parsed on a thread of its
own (src/formats/read.c, text.c), whatever cores the machine has. Edge lists, DIMACS and Matrix
Market files of 5 to 17 MiB, read with --threads=3, 7 and 16 (3 to 16 pieces), must give SciPy's
distances (scipy.sparse.csgraph.floyd_warshall).

    test_threads.py APSP [--thread-count=LIB] [--acceptance]

The graphs have few vertices (V <= 600, so the solves are cheap) and many repeated edges. Every
weight lies in [1000, 2000), so a path of two edges is longer than any edge: each pair's distance
is the least weight of its own lines where it has some, and a line lost or altered at a cut
shows in the result.

--thread-count=LIB (thread_count.c beside this script, preloaded): one thread count for every
parallel part.
On a 17 MiB edge list with V = 1500 (its edges checked and placed, its 9 MB output written, all
on several threads by default), --threads=1 must start no more threads than a run on a tiny
input (the command's own helpers: signals, the output's room), and --threads=16 at least 30
more (the pthread backend's 15 helpers and 15 for the reader's pieces; the checks, copies and
writes add more), whatever cores the machine has.

--acceptance: issue 24's case at a smaller V: an edge list of about 6 MB, V = 3000, E = 400000,
with --threads=16, against scipy.sparse.csgraph.dijkstra from 200 seeded sources, and
byte-identical to the output of --threads=1.

Needs NumPy and SciPy; skips (exit 77) where they are missing (tests/support/need_scipy.py).
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import need_scipy  # noqa: E402

try:
    import numpy as np
    import scipy.sparse
    from scipy.sparse.csgraph import dijkstra, floyd_warshall
except ImportError as missing:
    need_scipy.missing(missing, "python3-numpy python3-scipy")

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


def check_formats(apsp, work, rng):
    failures = 0
    for write, ext, v, e in FORMATS:
        path, out = os.path.join(work, "g." + ext), os.path.join(work, "d.npy")
        u, t, w = random_edges(rng, v, e)
        edges, extra = write(path, v, u, t, w)
        # SciPy's dense input: inf is no edge (no weight is 0, which would be none too).
        expected = floyd_warshall(least_weights(v, edges))
        size = os.path.getsize(path) / 2**20
        for threads in THREADS:
            problem = run_apsp(apsp, threads, path, out, extra)
            if not problem and not np.array_equal(apsp_distances(out), expected):
                bad = np.argwhere(apsp_distances(out) != expected)
                problem = "%d cells differ from SciPy's, first %s" % (len(bad), bad[0].tolist())
            print("%s: %s, %.1f MiB, V = %d, E = %d, --threads=%d%s" % (
                "FAIL" if problem else "ok", ext, size, v, e, threads,
                ": " + problem if problem else ""), flush=True)
            failures += problem is not None
    return failures


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
        raise SystemExit("FAIL: %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                    p.stderr.decode(errors="replace").strip()))
    with open(count) as f:
        return int(f.read())


def check_thread_counts(apsp, work, rng, shim):
    tiny, large, v = os.path.join(work, "tiny.txt"), os.path.join(work, "large.txt"), 1500
    with open(tiny, "w") as f:
        f.write("0 1 5\n")
    write_edgelist(large, v, *random_edges(rng, v, 1_400_000))
    helpers = threads_started(apsp, work, shim, 1, tiny, v)
    failures = 0
    for threads, least, most in [(1, 0, helpers), (16, helpers + 2 * 15, None)]:
        started = threads_started(apsp, work, shim, threads, large, v)
        bad = started < least or (most is not None and started > most)
        print("%s: --threads=%d on %.1f MiB, V = %d: %d threads started (a tiny input: %d)" % (
            "FAIL" if bad else "ok", threads, os.path.getsize(large) / 2**20, v, started,
            helpers), flush=True)
        failures += bad
    return failures


def check_acceptance(apsp, work, rng):
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
        graph = scipy.sparse.csr_matrix((least[finite], np.nonzero(finite)), shape=(v, v))
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
    print("%s: acceptance, edge list of %.1f MB, V = %d, E = %d, --threads=16%s" % (
        "FAIL" if problem else "ok", os.path.getsize(path) / 1e6, v, e,
        ": " + problem if problem else ""), flush=True)
    return problem is not None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("apsp")
    ap.add_argument("--thread-count", metavar="LIB")
    ap.add_argument("--acceptance", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(24)
    with tempfile.TemporaryDirectory(prefix="apsp-threads-") as work:
        if args.acceptance:
            return 1 if check_acceptance(args.apsp, work, rng) else 0
        failures = check_formats(args.apsp, work, rng)
        if args.thread_count:
            failures += check_thread_counts(args.apsp, work, rng, args.thread_count)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
