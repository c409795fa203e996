"""Inputs that are not what their size, name or bytes suggest, and what the command prints of
them (issue 36, items 4, 6 and 8):

- proc: a file whose size reads 0 (procfs) is read as a stream: /proc/self/status is refused for
  what it is, with no wrapped number, and real graphs behind /proc/PID/cmdline (whose bytes a
  helper process's argv[0] chooses) in three text formats give the oracle's bytes
  (testcases/*.out);
- escapes: ESC and other control bytes in a --sources file, a file name, an option value and an
  input's field reach stderr escaped (\\xNN, once), apsp-mpi's messages too: no byte below 0x20
  but the final newline;
- npy: a square NumPy matrix (int32, int64, float32, float64; 0 or inf for no edge) as INPUT,
  by its name, by its magic bytes under another name and on standard input, against
  testcases/*.out; every other array refused with one line saying what is wrong;
- hw3-wide: int64 weights that make a distance past int32 certain refuse a hw3 OUTPUT before the
  solve (no progress line, the old file kept), others only once a distance is seen to pass.

    pytest_main.py test_inputs.py --apsp=APSP --testcases=TESTCASES_DIR [-k test_PART]
        [--exe mpirun MPIRUN --exe apsp-mpi APSP_MPI]
"""
import os
import re
import struct
import subprocess
import time

import pytest
from harness import need
from sanitizers import leak_env

INF32 = 2**30 - 1


@pytest.fixture(scope="module")
def apsp(apsp_path):
    """This file runs apsp by its path."""
    return apsp_path


@pytest.fixture(scope="module")
def cases(testcases):
    return testcases


@pytest.fixture(scope="module")
def mpi(exe):
    """(mpirun, apsp-mpi), or None where they are not passed (--exe mpirun, --exe apsp-mpi)."""
    return (exe["mpirun"], exe["apsp-mpi"]) if "apsp-mpi" in exe and "mpirun" in exe else None


def run(apsp, args, **more):
    return subprocess.run([apsp] + args, capture_output=True, timeout=300, **more)


def one_error_line(p, program=b"apsp"):
    """stderr is one line from the program, with no control byte but its final newline."""
    err = p.stderr
    return (err.startswith(program + b": ") and err.endswith(b"\n")
            and not any(c < 0x20 or c == 0x7f for c in err[:-1]))


def read_hw3(path):
    """(V, [(u, v, w), ...]) of a hw3 file."""
    with open(path, "rb") as f:
        data = f.read()
    v, e = struct.unpack_from("<ii", data)
    return v, [struct.unpack_from("<iii", data, 8 + 12 * i) for i in range(e)]


# --- proc ---------------------------------------------------------------------------------


def as_text(fmt, v, edges):
    """The graph in a text format, ending in a comment line that the helper's other arguments
    (after a NUL) fall into."""
    if fmt == "edgelist":
        return "".join("%d %d %d\n" % e for e in edges) + "#"
    if fmt == "dimacs":
        return ("p sp %d %d\n" % (v, len(edges))
                + "".join("a %d %d %d\n" % (a + 1, b + 1, w) for a, b, w in edges) + "c ")
    return ("%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n" % (v, v, len(edges))
            + "".join("%d %d %d\n" % (a + 1, b + 1, w) for a, b, w in edges) + "%")


def behind_cmdline(text):
    """A helper process whose /proc/PID/cmdline starts with `text`: a shell named by it, blocked
    reading its standard input (a builtin, so that the shell execs nothing else)."""
    helper = subprocess.Popen([text, "-c", "read line"], executable="/bin/sh",
                              stdin=subprocess.PIPE)
    path = "/proc/%d/cmdline" % helper.pid
    for _ in range(100):  # until the exec has happened
        with open(path, "rb") as f:
            if f.read().startswith(text.encode()):
                break
        time.sleep(0.01)
    return helper, path


def test_proc(apsp, cases, work, check):
    out = os.path.join(work, "out.bin")
    p = run(apsp, ["/proc/self/status", out])
    numbers = [int(n) for n in re.findall(rb"\d+", p.stderr)]
    check(p.returncode == 3 and one_error_line(p) and b"/proc/self/status" in p.stderr
          and b"text?" in p.stderr and max(numbers, default=0) < 2**32,
          "/proc/self/status as hw3: not one line naming text without a wrapped number: %d %r"
          % (p.returncode, p.stderr))
    p = run(apsp, ["--input-format=edgelist", "/proc/self/status", out])
    check(p.returncode == 3 and one_error_line(p) and b"line 1: expected source vertex, found "
          b"'Name:'" in p.stderr,
          "/proc/self/status as an edge list: its first line not read: %d %r"
          % (p.returncode, p.stderr))
    for case in ("example", "v5-dups", "v63-zeros", "v130-chain", "v333-random",
                 "v500-disconnected"):
        v, edges = read_hw3(os.path.join(cases, case + ".in"))
        with open(os.path.join(cases, case + ".out"), "rb") as f:
            want = f.read()
        for fmt in ("edgelist", "dimacs", "mtx"):
            helper, path = behind_cmdline(as_text(fmt, v, edges))
            try:
                check(os.stat(path).st_size == 0, "%s: not a zero-size file" % path)
                p = run(apsp, ["--input-format=" + fmt, "--vertices=%d" % v, path, out]
                        if fmt == "edgelist" else ["--input-format=" + fmt, path, out])
            finally:
                helper.stdin.close()
                helper.wait()
            got = open(out, "rb").read() if p.returncode == 0 else None
            check(got == want, "%s as %s behind %s: %d %r, %s the oracle's bytes"
                  % (case, fmt, path, p.returncode, p.stderr, "not" if got else "no output, not"))


# --- escapes ------------------------------------------------------------------------------


def test_escapes(apsp, cases, work, mpi, check):
    graph = os.path.join(cases, "example.in")
    out = os.path.join(work, "out.bin")
    sources = os.path.join(work, "sources.txt")
    with open(sources, "wb") as f:
        f.write(b"3\n\x1b[31mred\x1b]0;title\x07\n")
    hostile = os.path.join(work, "x\x1b[2J\x1b]0;pwned\x07.txt")
    with open(hostile, "w") as f:
        f.write("0 1 5\n1 \x1b[31m2 3\n")
    runs = [
        ("--sources=@FILE", ["--sources=@" + sources, graph, out], 2, b"\\x1b[31mred\\x1b]0"),
        ("--sources value", ["--sources=1\x1b[2J", graph, out], 2, b"1\\x1b[2J"),
        ("option value", ["--tile=\x1b[2J\n2", graph, out], 2, b"--tile=\\x1b[2J\\x0a2"),
        ("--input-format value", ["--input-format=\x1b[5m", graph, out], 2, b"=\\x1b[5m"),
        ("missing INPUT name", [os.path.join(work, "nope\x1b[2J.in"), out], 3,
         b"nope\\x1b[2J.in"),
        ("an edge list's name and field", [hostile, out], 3, b"x\\x1b[2J\\x1b]0;pwned\\x07.txt"),
        ("OUTPUT name", [graph, os.path.join(work, "no-dir\x1b[2J", "out.bin")], 4,
         b"no-dir\\x1b[2J"),
    ]
    for what, args, code, shown in runs:
        p = run(apsp, args)
        check(p.returncode == code and one_error_line(p) and shown in p.stderr,
              "%s: exit %d, stderr %r (want exit %d, one line showing %r)"
              % (what, p.returncode, p.stderr, code, shown))
        # The reader's own quoting of a field and the printer's are one notation, not stacked.
        check(b"\\\\x" not in p.stderr, "%s: escaped twice: %r" % (what, p.stderr))
    if not mpi:
        print("apsp-mpi: not built here, its messages not checked")
        return
    mpirun, apsp_mpi = mpi
    env = leak_env(dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    for what, args, code, shown in [
            ("apsp-mpi option value", ["--grid=\x1b[2J", graph, out], 2, b"\\x1b[2J"),
            ("apsp-mpi INPUT name", [os.path.join(work, "nope\x1b[2J.in"), out], 3,
             b"nope\\x1b[2J.in")]:
        p = subprocess.run([mpirun, "-q", "--oversubscribe", "-np", "1", apsp_mpi] + args,
                           capture_output=True, timeout=300, env=env)
        check(p.returncode == code and one_error_line(p, b"apsp-mpi") and shown in p.stderr,
              "%s: exit %d, stderr %r" % (what, p.returncode, p.stderr))


# --- npy ----------------------------------------------------------------------------------


def dense(v, edges, dtype, no_edge, np):
    """The graph as SciPy holds a dense one: the least weight of repeated edges, no_edge (0 or
    inf) where there is none, the diagonal 0."""
    m = np.full((v, v), np.inf)
    for a, b, w in edges:
        if a != b:
            m[a, b] = min(m[a, b], w)
    m[np.isinf(m)] = no_edge
    np.fill_diagonal(m, 0)
    return m.astype(dtype)


def npy_bytes(header, body=b"", version=1):
    """A .npy file with the header dictionary as given (padded as numpy.save pads it)."""
    size = 10 if version == 1 else 12
    text = header + " " * (-(size + len(header) + 1) % 64) + "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + length + text.encode() + body


def test_npy(apsp, cases, work, check):
    np = need("numpy", "python3-numpy")
    out = os.path.join(work, "out.bin")
    kinds = [(np.int32, 0), (np.int64, 0), (np.float32, 0), (np.float64, np.inf),
             (np.float64, 0)]
    tried = 0
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".in"):
            continue
        v, edges = read_hw3(os.path.join(cases, name))
        if any(w == 0 and a != b for a, b, w in edges):
            continue  # a dense matrix has no edge of weight 0: SciPy's 0 is no edge
        with open(os.path.join(cases, name[:-3] + ".out"), "rb") as f:
            want = f.read()
        dtype, no_edge = kinds[tried % len(kinds)]
        tried += 1
        matrix = os.path.join(work, "g.npy")
        np.save(matrix, dense(v, edges, dtype, no_edge, np))
        renamed = os.path.join(work, "g.in")
        os.replace(matrix, renamed)
        np.save(matrix, dense(v, edges, dtype, no_edge, np))
        with open(matrix, "rb") as f:
            data = f.read()
        for how, args, stdin in [("by its name", [matrix, out], None),
                                 ("by its magic bytes", [renamed, out], None),
                                 ("on standard input", ["-", out], data),
                                 ("as --input-format=npy", ["--input-format=npy", "-", out],
                                  data)]:
            p = run(apsp, args, input=stdin)
            got = open(out, "rb").read() if p.returncode == 0 else None
            check(got == want, "%s as %s .npy %s: %d %r" % (name, np.dtype(dtype).name, how,
                                                             p.returncode, p.stderr))
    check(tried >= 10, "only %d testcases read as matrices" % tried)

    # Fractional weights: float64 distances, against Floyd-Warshall in Python.
    w = [[0, 1.5, np.inf, 0.25], [np.nan, 0, 2.75, 0], [0.5, -np.inf, 0, 0], [0, 0, 1.125, 0]]
    np.save(os.path.join(work, "f.npy"), np.array(w))
    want = [[0.0 if i == j else (w[i][j] if w[i][j] and np.isfinite(w[i][j]) else np.inf)
             for j in range(4)] for i in range(4)]
    for k in range(4):
        for i in range(4):
            for j in range(4):
                want[i][j] = min(want[i][j], want[i][k] + want[k][j])
    p = run(apsp, [os.path.join(work, "f.npy"), os.path.join(work, "d.npy")])
    got = np.load(os.path.join(work, "d.npy")).tolist() if p.returncode == 0 else None
    check(got == want, "fractional matrix: %d %r: %s, want %s" % (p.returncode, p.stderr, got,
                                                                   want))

    square = "'fortran_order': False, 'shape': (2, 2), }"
    refused = [
        ("not square", np.zeros((2, 3), np.int32), "shape (2, 3)"),
        ("1-D", np.zeros(4), "1 dimension"),
        ("3-D", np.zeros((2, 2, 2)), "3 dimensions"),
        ("empty", np.zeros((0, 0)), "shape (0, 0)"),
        ("Fortran order", np.asfortranarray(np.ones((3, 3))), "Fortran order"),
        ("uint8", np.ones((3, 3), np.uint8), "'|u1'"),
        ("big-endian", np.ones((3, 3), ">i4"), "'>i4'"),
        ("float16", np.ones((3, 3), np.float16), "'<f2'"),
        ("objects", np.array([[None, 1], [1, None]], dtype=object), "'|O'"),
        ("truncated", npy_bytes("{'descr': '<i4', " + square, b"\0" * 15), "truncated"),
        ("trailing", npy_bytes("{'descr': '<i4', " + square, b"\0" * 17), "trailing garbage"),
        ("version 9", npy_bytes("{'descr': '<i4', " + square, b"\0" * 16, 9), "version 9.0"),
        ("no shape", npy_bytes("{'descr': '<i4', 'fortran_order': False, }"), "header"),
        ("unknown key", npy_bytes("{'descr': '<i4', 'x': 1, " + square), "header"),
        ("cut header", npy_bytes("{'descr': '<i4', " + square)[:40], "ends inside its header"),
        ("weight past int32's rule", np.array([[0, 2**31 - 1], [0, 0]], np.int32),
         "row 0, column 1 (byte offset 132): weight 2147483647 is too large"),
        ("fraction for int32", np.array([[0, 0.5], [0, 0]]), "not a whole number"),
    ]
    for what, array, needle in refused:
        path = os.path.join(work, "bad.npy")
        if isinstance(array, bytes):
            with open(path, "wb") as f:
                f.write(array)
        else:
            np.save(path, array)
        args = ["--dtype=int32"] if "int32" in what else []
        for how, full, stdin in [("file", args + [path, out], None),
                                 ("stream", args + ["--input-format=npy", "-", out],
                                  open(path, "rb").read())]:
            p = run(apsp, full, input=stdin)
            check(p.returncode == 3 and one_error_line(p) and needle.encode() in p.stderr
                  and (b"bad.npy" if how == "file" else b"stdin") in p.stderr,
                  "%s (%s): %d %r, want exit 3 saying %r" % (what, how, p.returncode, p.stderr,
                                                            needle))
    # Asked for hw3, a .npy file is refused as one, not read as a hw3 header of E = 88400.
    p = run(apsp, ["--input-format=hw3", os.path.join(work, "g.in"), out])
    check(p.returncode == 3 and one_error_line(p) and b"NumPy .npy" in p.stderr,
          "a .npy file as --input-format=hw3: %d %r" % (p.returncode, p.stderr))


# --- hw3-wide -----------------------------------------------------------------------------


def hw3(v, edges):
    return struct.pack("<ii", v, len(edges)) + b"".join(struct.pack("<iii", *e) for e in edges)


def test_hw3_wide(apsp, work, check):
    out = os.path.join(work, "out.bin")
    graph = os.path.join(work, "g.in")
    big = 2**30
    cases = [
        # The graph: a weight of 2^30 with V = 5, the only edge out of vertex 0.
        ("2^30 out of vertex 0", [(0, 1, big)], "before", "distance from 0 to 1 is at least "
         "1073741824"),
        ("2^30 and more into vertex 2", [(0, 1, 1), (1, 0, 1), (0, 2, big), (1, 2, big + 1)],
         "before", "every edge into 2"),
        ("-2^30", [(0, 1, -big), (1, 0, big + 3)], "before", "is at most -1073741824"),
        ("2^30 bypassed", [(0, 1, big), (0, 2, 1), (2, 1, 1)], "written", None),
        ("a path past 2^30", [(0, 1, 2**29 + 1), (1, 2, 2**29 + 1)], "after",
         "distance from 0 to 2 is 1073741826"),
    ]
    for what, edges, when, needle in cases:
        with open(graph, "wb") as f:
            f.write(hw3(5, edges))
        with open(out, "wb") as f:
            f.write(b"old")
        p = run(apsp, ["--progress", graph, out])
        solved = b"apsp: round " in p.stderr
        lines = p.stderr.splitlines()
        if when == "written":
            check(p.returncode == 0 and len(open(out, "rb").read()) == 4 * 25,
                  "%s: %d %r" % (what, p.returncode, p.stderr))
            continue
        check(p.returncode == 4 and lines and needle.encode() in lines[-1]
              and b"hw3" in lines[-1] and open(out, "rb").read() == b"old",
              "%s: %d %r, want exit 4 naming %r and the old file" % (what, p.returncode,
                                                                     p.stderr, needle))
        check(solved == (when == "after"), "%s: refused %s the solve, want %s it"
              % (what, "after" if solved else "before", when))
    # --dtype=int32 keeps the hw3 rule: refused at read.
    with open(graph, "wb") as f:
        f.write(hw3(5, [(0, 1, big)]))
    p = run(apsp, ["--dtype=int32", graph, out])
    check(p.returncode == 3 and one_error_line(p) and b"weight 1073741824" in p.stderr,
          "--dtype=int32: %d %r" % (p.returncode, p.stderr))

