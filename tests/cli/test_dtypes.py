"""The distances' types through NumPy and the apsp command.

    pytest_main.py test_dtypes.py --apsp=APSP --exe test-dtypes TEST_DTYPES [--opt=graphs=N]
        [--opt=seed=S]

- numpy.load (also memory-mapped) reads the .npy of every type that `test-formats-dtypes --write` makes,
  with its dtype, shape and values; numpy.loadtxt reads the text output back to the same values
  (floats: the same bits).
- The command: --dtype refused when malformed; real weights (or --dtype=float*) with a hw3
  OUTPUT refused before the solve, nothing written; --dtype=int32 refuses a fraction at its line;
  -v says which type ran and why; real weights whose path sums could overflow to inf, or that
  the type would round to 0, refused at their line, quoted as written.
- Whole-number floats (--dtype=float32/float64): the int32 kernels, which -v and --stats-json
  name, the bits of --float-kernels, SciPy's numbers; a fraction or sums past 2^53: the float
  path, and why.
- End to end on random graphs, against an exact Floyd-Warshall in Python integers (int64) or
  SciPy's floyd_warshall (floats, within a stated tolerance): weights past int32's rule give an
  int64 .npy; a hw3 OUTPUT of such a run is written when every distance fits int32 and refused
  (exit 4, the old file kept) when one does not; fractional weights give float64; --dtype=float32
  gives float32; --predecessors in each type checked as paths (every step an edge, the weights
  summing to the distance).
"""
import os
import random
import subprocess
import sys

from harness import need

np = need("numpy", "python3-numpy")
csr_matrix = need("scipy.sparse", "python3-scipy").csr_matrix
floyd_warshall = need("scipy.sparse.csgraph", "python3-scipy").floyd_warshall

INF32, INF64 = 2**30 - 1, 2**62 - 1
GRAPHS = 40  # --opt=graphs=N


def run(apsp, args):
    return subprocess.run([apsp, "--backend=cpu", "-q"] + args, capture_output=True, text=True)


def test_numpy(exe, work, check):
    tool = exe["test-dtypes"]
    out = os.path.join(work, "written")
    os.mkdir(out)
    subprocess.run([tool, "--write", out], check=True)
    c = {"int32": 12, "int64": 2**40 + 1, "float32": 0.1, "float64": 0.1}
    for name, dtype in [("int32", np.int32), ("int64", np.int64), ("float32", np.float32),
                        ("float64", np.float64)]:
        unreachable = {"int32": INF32, "int64": INF64}.get(name, np.inf)
        want = np.array([[0, 7, c[name]], [c[name], 0, -3], [unreachable, c[name], 0]], dtype=dtype)
        for mmap in (None, "r"):
            got = np.load(os.path.join(out, name + ".npy"), mmap_mode=mmap)
            check(got.dtype == np.dtype(dtype) and got.shape == (3, 3), "%s.npy: %s %s" %
                  (name, got.dtype, got.shape))
            check(np.array_equal(got, want), "%s.npy: %s, expected %s" % (name, got, want))
        with open(os.path.join(out, name + ".txt")) as f:
            text = [line.split() for line in f]
        if "float" in name:
            back = np.array([[float(x) for x in row] for row in text]).astype(dtype)
            check(np.array_equal(back, want), "%s.txt: %s" % (name, text))
        else:
            check([[None if x == "inf" else int(x) for x in row] for row in text] ==
                  [[None if x == unreachable else int(x) for x in row] for row in want.tolist()],
                  "%s.txt: %s" % (name, text))


def test_command(apsp_path, work, check):
    apsp = apsp_path
    path = os.path.join(work, "real.txt")
    with open(path, "w") as f:
        f.write("0 1 1.5\n1 2 2\n")
    r = run(apsp, ["--dtype=int16", path, os.path.join(work, "x.npy")])
    check(r.returncode == 2 and "--dtype=int16" in r.stderr, "--dtype=int16: %s" % r.stderr)
    out = os.path.join(work, "out.bin")
    r = run(apsp, [path, out])
    check(r.returncode == 2 and "float64" in r.stderr and "hw3" in r.stderr and
          not os.path.exists(out), "real weights to hw3: %d %s" % (r.returncode, r.stderr))
    whole = os.path.join(work, "whole.txt")
    with open(whole, "w") as f:
        f.write("0 1 1\n1 2 2\n")
    r = run(apsp, ["--dtype=float32", whole, out])
    check(r.returncode == 2 and "float32" in r.stderr and not os.path.exists(out),
          "--dtype=float32 to hw3: %s" % r.stderr)
    r = run(apsp, ["--dtype=int32", path, os.path.join(work, "x.npy")])
    check(r.returncode == 3 and "line 1" in r.stderr and "not a whole number" in r.stderr,
          "--dtype=int32 with 1.5: %s" % r.stderr)
    r = run(apsp, ["-v", whole, os.path.join(work, "x.npy")])
    check(r.returncode == 0 and "distances int32: every weight" in r.stderr, "-v: %s" % r.stderr)
    check(np.load(os.path.join(work, "x.npy")).dtype == np.int32, "small weights: int32 .npy")


def test_whole_floats(apsp_path, work, check):
    apsp = apsp_path
    """--dtype=float32/float64 with whole weights (negative ones too) runs the int32 kernels and
    -v and --stats-json say so; the .npy has the bits of --float-kernels and SciPy's numbers.
    A fraction, or weights whose sums could pass 2^53, take the float path, and -v says why."""
    src = os.path.join(work, "whole-floats.txt")
    rng = random.Random(26)
    v = 200
    # Forward edges only: no cycle, so negative weights are fine; no 0, which SciPy's dense
    # input reads as no edge.
    edges = [(i, j, rng.choice([-1, 1]) * rng.randrange(1, 100)) for i in range(v)
             for j in range(i + 1, v) if rng.random() < 0.05]
    write_edges(src, edges)
    w = np.full((v, v), np.inf)
    for i, j, x in edges:
        w[i, j] = min(w[i, j], x)
    want = floyd_warshall(np.where(np.isinf(w), 0, w), directed=True)
    for dtype in ("float32", "float64"):
        got = {}
        for extra in ([], ["--float-kernels"]):
            out = os.path.join(work, "whole-%s%d.npy" % (dtype, len(extra)))
            r = run(apsp, ["-v", "--stats-json", "--dtype=" + dtype] + extra + [src, out])
            kernels = "int32" if not extra else dtype
            said = ("%s graph with whole weights: int32 kernels" % dtype if not extra
                    else "float path: asked for")
            check(r.returncode == 0 and said in r.stderr and
                  '"kernels":"%s"' % kernels in r.stderr,
                  "whole %s %s: %s" % (dtype, extra, r.stderr))
            got[len(extra)] = open(out, "rb").read() if r.returncode == 0 else b""
        check(got[0] == got[1] and len(got[0]) > 0, "whole %s: the .npy differs from "
              "--float-kernels'" % dtype)
        d = np.load(os.path.join(work, "whole-%s0.npy" % dtype)).astype(np.float64)
        check(np.array_equal(d, want), "whole %s: not SciPy's distances" % dtype)
    for line, said in [("0 1 0.5\n1 2 3\n", "float path: weight 0.5 of edge 0 is not whole"),
                       ("0 1 %d\n1 2 1\n" % 2**52, "where float64 rounds")]:
        with open(src, "w") as f:
            f.write(line)
        r = run(apsp, ["-v", "--dtype=float64", src, os.path.join(work, "x.npy")])
        check(r.returncode == 0 and said in r.stderr, "%r: %s" % (line, r.stderr))


def test_float_limits(apsp_path, work, check):
    apsp = apsp_path
    """Real weights whose path sums could overflow to inf, or that round to 0 (or a subnormal) in
    the type, are refused at their line, quoted as written, with nothing written; just inside
    the rule the distances are exact (2 w: a path of two edges)."""
    src, out = os.path.join(work, "limits.txt"), os.path.join(work, "limits.npy")
    big = sys.float_info.max / 2  # V = 3: a path of two edges has length 2 w
    cases = [
        ([], "%r" % (big * 0.999), 0, "float64"),
        ([], "1.5e308", 3, "weight 1.5e308 is too large: with V = 3, float64"),
        (["--dtype=float32"], "1.5e38", 0, "float32"),
        (["--dtype=float32"], "3e38", 3, "weight 3e38 is too large: with V = 3, float32"),
        (["--dtype=float32"], "1e39", 3, "weight 1e39 is outside float32's range"),
        (["--dtype=float32"], "1e-46", 3, "weight 1e-46 is not 0 but below float32's"),
        ([], "1e-400", 3, "weight 1e-400 is not 0 but below float64's"),
    ]
    for options, w, code, said in cases:
        with open(src, "w") as f:
            f.write("0 1 %s\n1 2 %s\n" % (w, w))
        if os.path.exists(out):
            os.remove(out)
        r = run(apsp, options + ["-v", "--path=0,2", src, out])
        what = "%s %s" % (" ".join(options), w)
        check(r.returncode == code and said in r.stderr and
              (code == 0) == os.path.exists(out), "%s: exit %d: %s" % (what, r.returncode, r.stderr))
        if code == 0 and r.returncode == 0:
            typed = np.float32 if options else np.float64
            d = np.load(out)
            check(d[0, 2] == 2 * typed(float(w)) and "length " in r.stdout,
                  "%s: d(0, 2) = %r, path %s" % (what, d[0, 2], r.stdout))
        elif code:
            check("line 1" in r.stderr, "%s: no line in %s" % (what, r.stderr))


def exact_fw(v, edges):
    """Floyd-Warshall in Python integers: exact at any width. None for unreachable."""
    d = [[0 if i == j else None for j in range(v)] for i in range(v)]
    for a, b, w in edges:
        if a != b and (d[a][b] is None or w < d[a][b]):
            d[a][b] = w
    for k in range(v):
        dk = d[k]
        for i in range(v):
            dik = d[i][k]
            if dik is None:
                continue
            di = d[i]
            for j in range(v):
                if dk[j] is not None and (di[j] is None or dik + dk[j] < di[j]):
                    di[j] = dik + dk[j]
    return d


def write_edges(path, edges, fmt="%d %d %d\n"):
    with open(path, "w") as f:
        for e in edges:
            f.write(fmt % e)


def check_paths(name, pred, dist, edges, tolerance, check):
    """Every predecessor chain of pred: edges of the graph whose weights sum to the distance."""
    least = {}
    for a, b, w in edges:
        if a != b:
            least[(a, b)] = min(w, least.get((a, b), w))
    v = len(dist)
    for i in range(v):
        for j in range(v):
            reachable = np.isfinite(dist[i][j]) if tolerance else dist[i][j] < INF64
            if i == j or not reachable:
                check(pred[i][j] == -9999, "%s: pred(%d, %d) = %d" % (name, i, j, pred[i][j]))
                continue
            at, total, steps = j, 0, 0
            while at != i and steps <= v:
                k = int(pred[i][at])
                if (k, at) not in least:
                    check.fail("%s: pred(%d, %d) = %d is no edge" % (name, i, at, k))
                    return
                total += least[(k, at)]
                at, steps = k, steps + 1
            want = dist[i][j] if tolerance else int(dist[i][j])
            check(at == i and abs(total - want) <= tolerance * max(1, abs(want)),
                  "%s: the path %d -> %d sums to %r, the distance is %r" % (name, i, j, total,
                                                                            want))


def test_end_to_end(apsp_path, work, rng, case, check):
    """A random graph: int32 or int64 distances, hw3 written or refused, floats, predecessors."""
    apsp, index = apsp_path, case
    v = rng.randint(2, 24)
    big = rng.choice([2**31, 2**40, INF64 // (2 * max(v - 1, 1))])
    edges = [(rng.randrange(v), rng.randrange(v), rng.randint(0, big))
             for _ in range(rng.randint(1, 3 * v))]
    src = os.path.join(work, "g%d.txt" % index)
    write_edges(src, edges)
    npy, pred = os.path.join(work, "g%d.npy" % index), os.path.join(work, "p%d.npy" % index)
    size = "--vertices=%d" % v  # an edge list names V only through its largest id
    r = run(apsp, ["-v", size, "--predecessors=" + pred, src, npy])
    exact = exact_fw(v, edges)
    widest = max(abs(w) for _, _, w in edges)
    want_type = np.int32 if (v - 1) * widest < INF32 else np.int64
    got = np.load(npy) if r.returncode == 0 else None
    check(r.returncode == 0 and got.dtype == want_type, "graph %d: %s %s" %
          (index, r.stderr, None if got is None else got.dtype))
    if got is None:
        return
    inf = INF32 if want_type == np.int32 else INF64
    check([[None if x == inf else int(x) for x in row] for row in got.tolist()] == exact,
          "graph %d: the int64 distances differ from the exact ones" % index)
    check_paths("graph %d" % index, np.load(pred), got.astype(np.int64).tolist(), edges, 0, check)
    # hw3: written when every distance fits int32, else refused with the old file kept.
    hw3 = os.path.join(work, "g%d.bin" % index)
    with open(hw3, "wb") as f:
        f.write(b"old")
    r = run(apsp, [size, src, hw3])
    fits = all(x is None or abs(x) < INF32 for row in exact for x in row)
    if fits:
        back = np.fromfile(hw3, dtype="<i4").reshape(v, v).tolist()
        check(r.returncode == 0 and back == [[INF32 if x is None else x for x in row]
                                             for row in exact], "graph %d: hw3" % index)
    else:
        check(r.returncode == 4 and "hw3" in r.stderr and open(hw3, "rb").read() == b"old",
              "graph %d: hw3 of a distance past int32: %d %s" % (index, r.returncode, r.stderr))
    # Fractional weights: float64 against SciPy; --dtype=float32 too.
    real = [(a, b, rng.choice([0.5, 0.25, 1.1, 2e-3, 3.75]) * rng.randint(0, 100))
            for a, b, _ in edges]
    write_edges(src, real, "%d %d %.17g\n")
    best = {}
    for a, b, w in real:
        if a != b:
            best[(a, b)] = min(w, best.get((a, b), w))
    m = csr_matrix((list(best.values()), tuple(zip(*best)) if best else ([], [])), shape=(v, v))
    want = floyd_warshall(m) if best else np.where(np.eye(v) > 0, 0.0, np.inf)
    for dtype, tolerance in (("float64", 1e-12), ("float32", 1e-5)):
        r = run(apsp, ["--dtype=" + dtype, size, "--predecessors=" + pred, src, npy])
        got = np.load(npy) if r.returncode == 0 else None
        check(got is not None and got.dtype == np.dtype(dtype) and
              np.allclose(got, want, rtol=tolerance, atol=tolerance), "graph %d %s: %s" %
              (index, dtype, r.stderr))
        if got is not None:
            check_paths("graph %d %s" % (index, dtype), np.load(pred), got.astype(np.float64),
                        real, 64 * tolerance, check)

