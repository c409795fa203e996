"""End-to-end tests of the apsp command (python3 standard library only).

    pytest_main.py test_cli.py --apsp=APSP [--testcases=DIR] [--apsp-arg=ARG]... [-k test_case]

test_case runs `APSP [ARG...] NAME.in OUT` for every testcases/NAME.in and compares OUT with
NAME.out byte for byte; the other tests (left out by -k test_case) check the CLI's behaviour:
exit codes, one-line errors, --help/--version, atomic output (no partial or temporary file after
a failure, an existing output untouched), pipes, signals. Each --apsp-arg is passed to every
solving run, e.g. --apsp-arg=--backend=opencl --apsp-arg=--tile=16 (write them with '=').

A case that finds no such device skips (every case: exit 77), unless APSP_TEST_REQUIRE_DEVICE=1
makes that a failure.
"""
import os
import re
import signal
import stat
import struct
import subprocess
import time

import pytest
from harness import (EXIT_DEVICE, EXIT_INPUT, EXIT_MEMORY, EXIT_NEGATIVE_CYCLE, EXIT_OUTPUT,
                     EXIT_USAGE, describe, one_error_line, skip)

INF = 1073741823
TIMEOUT = 300


def hw3(v, e, edges):
    return struct.pack("<2i", v, e) + b"".join(struct.pack("<3i", *t) for t in edges)


def temp_files(directory):
    return sorted(n for n in os.listdir(directory) if re.match(r"^\..*\.apsp-", n))


def holds_temp_file(proc, directory):
    """The run has made its temporary output: a named .NAME.apsp-XXXXXX, or (Linux O_TMPFILE) an
    unnamed file, which only /proc/PID/fd shows, as 'DIRECTORY/#INODE (deleted)'."""
    if temp_files(directory):
        return True
    fd_dir = "/proc/%d/fd" % proc.pid
    try:
        return any(os.readlink(os.path.join(fd_dir, n)).startswith(directory + "/")
                   for n in os.listdir(fd_dir))
    except OSError:
        return False


def first_difference(got, want):
    if len(got) != len(want):
        return "%d bytes, expected %d" % (len(got), len(want))
    n = int(round((len(want) // 4) ** 0.5))
    for k in range(0, len(want), 4):
        if got[k : k + 4] != want[k : k + 4]:
            g, w = struct.unpack("<i", got[k : k + 4])[0], struct.unpack("<i", want[k : k + 4])[0]
            return "first difference at i=%d j=%d: got %d, expected %d" % (
                k // 4 // n, k // 4 % n, g, w)
    return None


def no_device(p):
    text = p.stderr.decode(errors="replace")
    return p.returncode == EXIT_DEVICE and re.search(r"\bno\b.*\bdevice", text)


def pytest_generate_tests(metafunc):
    """test_case once per testcases/NAME.in (--testcases)."""
    if "name" in metafunc.fixturenames:
        cases = metafunc.config.getoption("testcases")
        names = sorted(f[:-3] for f in os.listdir(cases) if f.endswith(".in"))
        assert names, "no testcases in %s" % cases
        metafunc.parametrize("name", names)


@pytest.fixture
def example(testcases):
    return os.path.join(testcases, "example.in")


@pytest.fixture
def example_out(testcases):
    return os.path.join(testcases, "example.out")


def test_case(apsp, testcases, work, name):
    out = os.path.join(work, name + ".out")
    p = apsp.run([os.path.join(testcases, name + ".in"), out])
    if no_device(p):
        skip("no device for %s: %s" % (" ".join(apsp.extra), p.stderr.decode().strip()))
    assert p.returncode == 0, "case %s: %s" % (name, describe(p))
    with open(os.path.join(testcases, name + ".out"), "rb") as f:
        want = f.read()
    with open(out, "rb") as f:
        got = f.read()
    assert got == want, "case %s: %s" % (name, first_difference(got, want))
    os.unlink(out)
    assert temp_files(work) == [], "case %s left temporary files: %s" % (name, temp_files(work))


def test_usage(apsp, work, example, check):
    for flag in ("--help", "-h"):
        p = apsp.run([flag], solve=False)
        check(p.returncode == 0 and p.stdout.startswith(b"usage: apsp") and not p.stderr,
              "%s: %s" % (flag, describe(p)))
    p = apsp.run(["--version"], solve=False)
    check(p.returncode == 0 and re.match(rb"^apsp \d+\.\d+\.\d+\S*\n$", p.stdout) and not p.stderr,
          "--version: %s, stdout %r" % (describe(p), p.stdout))
    p = apsp.run(["--list-devices"], solve=False)
    check(p.returncode == 0 and re.search(rb"^0: ", p.stdout, re.M) and b"cpu" in p.stdout,
          "--list-devices: %s" % describe(p))

    out = os.path.join(work, "usage.out")
    bad = [
        [],
        [example],
        [example, out, out + "2"],
        ["--bogus", example, out],
        ["-x", example, out],
        ["--tile=0", example, out],
        ["--tile=abc", example, out],
        ["--tile=", example, out],
        ["--tile=5000", example, out],
        ["--threads=0", example, out],
        ["--threads=-1", example, out],
        ["--threads=2x", example, out],
        ["--backend=gpu", example, out],
        ["--backend=", example, out],
        ["--max-buffer-bytes=-1", example, out],
        ["--max-buffer-bytes=0", example, out],
        ["--max-buffer-bytes=12Q", example, out],
        ["--list-devices", example],
        [example, out, "--tile"],
        [example, out, "-d"],
    ]
    for args in bad:
        p = apsp.run(args, solve=False)
        what = "usage error for %s" % args
        check(p.returncode == EXIT_USAGE, "%s: %s" % (what, describe(p)))
        check(one_error_line(p), "%s: not one 'apsp: ' line: %r" % (what, p.stderr))
        check(not p.stdout, "%s: wrote to stdout" % what)
        check(not os.path.exists(out), "%s: created the output" % what)


def test_failures(apsp, work, example, check):
    """Every failing run: the right exit code, one error line naming the problem, no output,
    no temporary file, an existing output untouched."""
    inputs = os.path.join(work, "inputs")
    out_dir = os.path.join(work, "failed")
    os.mkdir(inputs)
    os.mkdir(out_dir)

    def write(name, data):
        path = os.path.join(inputs, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    good_edges = [(0, 1, 5), (1, 2, 7), (2, 0, 1)]
    bad_inputs = [
        ("empty", b"", "truncated header"),
        ("short-header", b"\x03\x00\x00", "truncated header"),
        ("v-zero", hw3(0, 0, []), "V = 0"),
        ("v-negative", hw3(-7, 0, []), "V = -7"),
        ("e-negative", hw3(3, -1, []), "E = -1"),
        ("missing-edge", hw3(3, 4, good_edges), "edge 3"),
        ("partial-edge", hw3(3, 3, good_edges)[:-5], "edge 2"),
        ("trailing-byte", hw3(3, 3, good_edges) + b"\0", "trailing garbage"),
        ("trailing-edge", hw3(3, 2, good_edges), "trailing garbage"),
        ("src-out-of-range", hw3(3, 3, good_edges[:2] + [(3, 0, 1)]), "edge 2"),
        ("dst-negative", hw3(3, 3, [(0, -1, 1)] + good_edges[1:]), "edge 0"),
    ]
    cases = [(name, write(name, data), EXIT_INPUT, [name, expect], [])
             for name, data, expect in bad_inputs]
    # Weights past int32's rule are int64 distances unless --dtype=int32 keeps the hw3 rule.
    for name, data, expect in [
            ("weight-negative", hw3(3, 3, [(0, 1, -536870912)] + good_edges[1:]), "too negative"),
            ("weight-too-large", hw3(3, 1, [(0, 1, 536870912)]), "weight 536870912")]:
        cases.append((name, write(name, data), EXIT_INPUT, [name, expect], ["--dtype=int32"]))
    cases.append(("missing-input", os.path.join(inputs, "nope.bin"), EXIT_INPUT, ["nope.bin"], []))
    cases.append(("directory-input", inputs, EXIT_INPUT, ["directory"], []))
    cases.append(("too-large", write("too-large", hw3(2147483647, 0, [])), EXIT_MEMORY,
                  ["too-large: V = 2147483647"], []))

    previous = b"an existing output that a failed run must leave alone\n" * 10
    for name, path, code, expect, options in cases:
        for existing in (False, True):
            out = os.path.join(out_dir, "result.bin")
            if existing:
                with open(out, "wb") as f:
                    f.write(previous)
            p = apsp.run(options + [path, out])
            what = "%s%s" % (name, " over an existing output" if existing else "")
            check(p.returncode == code, "%s: expected exit %d, %s" % (what, code, describe(p)))
            check(one_error_line(p), "%s: not one 'apsp: ' line: %r" % (what, p.stderr))
            for text in expect:
                check(text.encode() in p.stderr, "%s: the error lacks %r: %r" % (what, text,
                                                                               p.stderr))
            check(b"text?" not in p.stderr, "%s: a binary input called text: %r" % (what,
                                                                                  p.stderr))
            if existing:
                with open(out, "rb") as f:
                    check(f.read() == previous, "%s: the existing output was changed" % what)
                os.unlink(out)
            else:
                check(not os.path.exists(out), "%s: left an output file" % what)
            check(temp_files(out_dir) == [], "%s: left %s" % (what, temp_files(out_dir)))
            check(os.listdir(out_dir) == [], "%s: left %s" % (what, os.listdir(out_dir)))

    # Output errors, found before anything is computed.
    for name, out in (("output-in-missing-directory", os.path.join(out_dir, "no", "r.bin")),
                      ("output-is-a-directory", out_dir),
                      ("output-with-trailing-slash", out_dir + "/")):
        p = apsp.run([example, out])
        check(p.returncode == EXIT_OUTPUT, "%s: expected exit 4, %s" % (name, describe(p)))
        check(one_error_line(p), "%s: not one 'apsp: ' line: %r" % (name, p.stderr))
        check(os.listdir(out_dir) == [], "%s: left %s" % (name, os.listdir(out_dir)))


def test_success(apsp, work, example, example_out, check):
    with open(example_out, "rb") as f:
        want = f.read()
    with open(example, "rb") as f:
        example_bytes = f.read()
    out_dir = os.path.join(work, "ok")
    os.mkdir(out_dir)
    out = os.path.join(out_dir, "result.bin")

    old_umask = os.umask(0o022)
    try:
        p = apsp.run([example, out])
    finally:
        os.umask(old_umask)
    check(p.returncode == 0 and not p.stdout and not p.stderr,
          "a plain run must be silent off a terminal: %s, stdout %r" % (describe(p), p.stdout))
    check(os.path.exists(out) and open(out, "rb").read() == want, "plain run: wrong output")
    if os.path.exists(out):
        mode = stat.S_IMODE(os.stat(out).st_mode)
        check(mode == 0o644, "output mode %o, expected 644 (0666 minus umask 022)" % mode)

    # An existing (longer) output is replaced whole.
    with open(out, "wb") as f:
        f.write(b"\xff" * (len(want) * 3))
    p = apsp.run([example, out])
    check(p.returncode == 0 and open(out, "rb").read() == want,
          "overwriting an existing output: %s" % describe(p))
    os.unlink(out)

    # A bare file name: the output and its temporary file go to the working directory.
    p = apsp.run([example, "bare.bin"], cwd=out_dir)
    bare = os.path.join(out_dir, "bare.bin")
    check(p.returncode == 0 and os.path.exists(bare) and open(bare, "rb").read() == want,
          "output as a bare name in the working directory: %s" % describe(p))
    check(sorted(os.listdir(out_dir)) == ["bare.bin"], "left %s" % os.listdir(out_dir))
    os.unlink(bare)

    # A pipe as input: no file size to check in advance.
    p = apsp.run(["/dev/stdin", out], input=example_bytes, stdin=None)
    check(p.returncode == 0 and open(out, "rb").read() == want, "input from a pipe: %s"
          % describe(p))
    os.unlink(out)
    p = apsp.run(["/dev/stdin", out], input=example_bytes[:-3], stdin=None)
    check(p.returncode == EXIT_INPUT and one_error_line(p) and b"truncated" in p.stderr,
          "truncated input from a pipe: %s" % describe(p))
    p = apsp.run(["/dev/stdin", out], input=example_bytes + b"\0", stdin=None)
    check(p.returncode == EXIT_INPUT and one_error_line(p) and b"trailing" in p.stderr,
          "trailing garbage from a pipe: %s" % describe(p))
    check(os.listdir(out_dir) == [], "failed pipe runs left %s" % os.listdir(out_dir))

    # Outputs that are not regular files are written directly: a pipe gets the bytes, and
    # /dev/null stays a device (a rename over it, as root, would have replaced it).
    p = apsp.run([example, "/dev/stdout"])
    check(p.returncode == 0 and p.stdout == want, "output to a pipe: %s" % describe(p))
    p = apsp.run([example, "/dev/null"])
    check(p.returncode == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode),
          "output to /dev/null: %s" % describe(p))
    check(not [f for f in os.listdir("/dev") if ".apsp-" in f], "a temporary file in /dev")

    # -v: a report on stderr, every line prefixed; the output is the same.
    p = apsp.run(["-v", example, out])
    lines = p.stderr.decode(errors="replace").splitlines()
    check(p.returncode == 0 and lines and all(l.startswith("apsp: ") for l in lines)
          and "backend" in p.stderr.decode(errors="replace"), "-v: %s" % describe(p))
    check(open(out, "rb").read() == want, "-v: wrong output")
    os.unlink(out)


def test_formats(apsp, work, example, example_out, check):
    """'-' for standard input and output, the formats by extension and by option, --undirected,
    --unweighted and --vertices, and their refusals (docs/usage.md, "Your own graph")."""
    d = os.path.join(work, "formats")
    os.mkdir(d)
    want = open(example_out, "rb").read()
    example_bytes = open(example, "rb").read()
    p = apsp.run(["-", "-"], input=example_bytes, stdin=None, cwd=d)
    check(p.returncode == 0 and p.stdout == want and not p.stderr,
          "'-' as input and output: %s" % describe(p))
    check(os.listdir(d) == [], "'-' made files: %s" % os.listdir(d))
    with open(example, "rb") as f:  # standard input a regular file (read as a stream)
        p = apsp.run(["-", "-"], stdin=f)
    check(p.returncode == 0 and p.stdout == want, "'-' from a redirected file: %s" % describe(p))
    p = apsp.run(["--input-format=edgelist", "--output-format=text", "-", "-"],
                 input=b"# a path\n0 1 3\n1 2 4\n", stdin=None)
    check(p.returncode == 0 and p.stdout == b"0 3 7\ninf 0 4\ninf inf 0\n",
          "an edge list from stdin, text to stdout: %s, %r" % (describe(p), p.stdout))
    files = {"g.gr": "c x\np sp 3 2\na 1 2 3\na 2 3 4\n",
             "g.mtx": "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 3\n2 3 4\n",
             "g.txt": "0 1 3\n1 2 4\n"}
    for name, text in files.items():
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        p = apsp.run([path, os.path.join(d, "o.txt")])
        got = open(os.path.join(d, "o.txt"), "rb").read() if p.returncode == 0 else b""
        check(got == b"0 3 7\ninf 0 4\ninf inf 0\n", "%s by its extension: %s, %r"
              % (name, describe(p), got))
        p = apsp.run(["--undirected", "--unweighted", path, os.path.join(d, "o.txt")])
        got = open(os.path.join(d, "o.txt"), "rb").read() if p.returncode == 0 else b""
        check(got == b"0 1 2\n1 0 1\n2 1 0\n", "%s --undirected --unweighted: %s, %r"
              % (name, describe(p), got))
        os.unlink(os.path.join(d, "o.txt"))
    gr = os.path.join(d, "g.gr")
    p = apsp.run([gr, os.path.join(d, "o.npy")])
    data = open(os.path.join(d, "o.npy"), "rb").read() if p.returncode == 0 else b""
    check(data[:8] == b"\x93NUMPY\x01\x00" and len(data) == 128 + 36,
          ".npy by its extension: %s, %d bytes" % (describe(p), len(data)))
    p = apsp.run(["--output-format=npy", gr, os.path.join(d, "o.bin")])
    check(p.returncode == 0 and open(os.path.join(d, "o.bin"), "rb").read() == data,
          "--output-format=npy: %s" % describe(p))
    p = apsp.run(["--input-format=dimacs", "--vertices=5", gr, os.path.join(d, "o.bin")])
    check(p.returncode == 0, "--vertices is for edge lists and harmless elsewhere: %s"
          % describe(p))
    p = apsp.run(["--vertices=4", os.path.join(d, "g.txt"), "-", "--output-format=text"])
    check(p.returncode == 0 and p.stdout.count(b"\n") == 4, "--vertices=4 on an edge list: %s"
          % describe(p))
    for args, code in ((["--input-format=text"], EXIT_USAGE), (["--input-format=npy"], EXIT_INPUT),
                       (["--output-format=mtx"], EXIT_USAGE),
                       (["--vertices=0"], EXIT_USAGE), (["--vertices=x"], EXIT_USAGE),
                       (["--input-format=edgelist"], EXIT_INPUT),
                       (["--input-format=mtx"], EXIT_INPUT)):
        p = apsp.run(args + [gr, os.path.join(d, "x.out")])
        check(p.returncode == code and one_error_line(p), "%s: %s" % (args, describe(p)))
    bad = os.path.join(d, "bad.txt")
    with open(bad, "w") as f:
        f.write("0 1 2\n1 2 x\n")
    out = os.path.join(d, "keep.out")
    with open(out, "wb") as f:
        f.write(b"old")
    p = apsp.run([bad, out])
    check(p.returncode == EXIT_INPUT and one_error_line(p) and b"bad.txt: line 2:" in p.stderr,
          "a malformed edge list names its line: %s" % describe(p))
    check(open(out, "rb").read() == b"old", "a refused input left the old output untouched")
    p = apsp.run(["-", out], input=b"0 1\n", stdin=None)
    check(p.returncode == EXIT_INPUT and b"stdin:" in p.stderr,
          "stdin is hw3 unless --input-format says otherwise: %s" % describe(p))
    check_format_refusals(apsp, d, check)


def check_format_refusals(apsp, d, check):
    """Text read as hw3 gets a hint, an OUTPUT named as a format apsp does not write is refused
    (unless --output-format says), and an edge list's V too large names the file."""
    text = b"0 1 3\n1 2 4\n2 0 1\n"
    out = os.path.join(d, "refused.out")
    named = os.path.join(d, "edges.dat")  # not an edge-list extension: read as hw3
    with open(named, "wb") as f:
        f.write(text)
    for args, what in ((["-", out], "piped"), ([named, out], "a file")):
        p = apsp.run(args, input=text if args[0] == "-" else None,
                     stdin=None if args[0] == "-" else subprocess.DEVNULL)
        check(p.returncode == EXIT_INPUT and one_error_line(p)
              and b"(text? use --input-format=edgelist|csv|dimacs|mtx)" in p.stderr,
              "an edge list read as hw3 (%s) hints at --input-format: %s" % (what, describe(p)))
    check(not os.path.exists(out), "a refused text input left %s" % out)
    graph = os.path.join(d, "g.txt")
    for name in ("d.parquet", "d.JSON", "d.xlsx", "d.mtx", "d.npz", "d.h5"):
        p = apsp.run([graph, os.path.join(d, name)])
        check(p.returncode == EXIT_USAGE and one_error_line(p) and b"--output-format" in p.stderr
              and not os.path.exists(os.path.join(d, name)),
              "OUTPUT %s (a format apsp does not write) is refused: %s" % (name, describe(p)))
    csv = os.path.join(d, "d.csv")  # (a long table by its name, hw3 when told)
    p = apsp.run(["--output-format=hw3", graph, csv])
    check(p.returncode == 0 and open(csv, "rb").read() == struct.pack("<9i", 0, 3, 7, INF, 0, 4,
                                                                       INF, INF, 0),
          "--output-format=hw3 writes d.csv as asked: %s" % describe(p))
    os.unlink(csv)
    for name in ("p.csv", "p.txt"):
        p = apsp.run(["--predecessors=" + os.path.join(d, name), graph, out])
        check(p.returncode == EXIT_USAGE and one_error_line(p) and not os.path.exists(out)
              and not os.path.exists(os.path.join(d, name)),
              "--predecessors=%s (not written as named) is refused: %s" % (name, describe(p)))
    p = apsp.run(["--vertices=2147483647", graph, out])
    check(p.returncode == EXIT_MEMORY and one_error_line(p)
          and (graph + ": V = 2147483647").encode() in p.stderr,
          "an edge list's V too large names the file: %s" % describe(p))


def closing(*fds):
    """A preexec_fn closing standard descriptors in the child, as the shell's `>&-` does."""
    return lambda: [os.close(fd) for fd in fds]


def test_standard_streams(apsp, work, example, example_out, check):
    """Standard output takes one thing; descriptors 0-2 closed by the caller are never taken by
    a file apsp opens (the output's temporary file would get the messages, or be read as
    stdin), and '-' for a closed stream is refused."""
    d = os.path.join(work, "streams")
    os.mkdir(d)
    want = open(example_out, "rb").read()
    graph = os.path.join(d, "g.txt")
    with open(graph, "w") as f:
        f.write("0 1 4\n1 2 1\n0 2 9\n")
    text = b"0 4 5\ninf 0 1\ninf inf 0\n"
    out = os.path.join(d, "d.txt")

    p = apsp.run(["--path=0,2", graph, "-"])
    check(p.returncode == EXIT_USAGE and one_error_line(p) and not p.stdout,
          "--path with OUTPUT - (both on stdout) is refused: %s, stdout %r" % (describe(p),
                                                                                p.stdout))
    p = apsp.run(["--path=0,2", graph, out])
    check(p.returncode == 0 and p.stdout == b"length 5: 0 -> 1 -> 2\n",
          "--path with an OUTPUT file: %s, %r" % (describe(p), p.stdout))
    os.unlink(out)

    # stdout closed: a file OUTPUT is right; anything for stdout is refused, nothing written.
    p = apsp.run([graph, out], preexec_fn=closing(1))
    check(p.returncode == 0 and open(out, "rb").read() == text,
          "stdout closed, OUTPUT a file: %s" % describe(p))
    os.unlink(out)
    for args in (["--predecessors=-", graph, out], ["--path=0,2", graph, out], [graph, "-"]):
        p = apsp.run(args, preexec_fn=closing(1))
        check(p.returncode == EXIT_OUTPUT and one_error_line(p)
              and b"standard output is closed" in p.stderr and not os.path.exists(out),
              "stdout closed, %s: %s" % (args, describe(p)))
        if os.path.exists(out):
            os.unlink(out)
    # stdin closed: '-' as INPUT says so, rather than reading some other file.
    npy = os.path.join(d, "o.npy")
    p = apsp.run(["-", npy], preexec_fn=closing(0))
    check(p.returncode == EXIT_INPUT and one_error_line(p)
          and b"stdin: standard input is closed" in p.stderr and not os.path.exists(npy),
          "stdin closed, INPUT -: %s" % describe(p))
    # stderr closed: the messages are dropped, never written into OUTPUT. A file of several
    # hard links is written in place (with a warning) from the descriptor opened on it.
    linked = os.path.join(d, "linked.out")
    old = b"the old result, kept if the run fails\n" * 4
    cycle = os.path.join(d, "cycle.txt")
    with open(cycle, "w") as f:
        f.write("0 1 1\n1 2 -3\n2 0 1\n")
    left = []
    for fds in ((), (2,)):
        with open(linked, "wb") as f:
            f.write(old)
        os.link(linked, linked + ".2")
        p = apsp.run([cycle, linked], preexec_fn=closing(*fds))
        left.append(open(linked, "rb").read())
        check(p.returncode == EXIT_NEGATIVE_CYCLE, "a negative cycle into a hard-linked file, "
              "descriptors %s closed: %s" % (fds, describe(p)))
        p = apsp.run([example, linked], preexec_fn=closing(*fds))
        check(p.returncode == 0 and open(linked, "rb").read() == want,
              "a hard-linked OUTPUT, descriptors %s closed: %s, %s" % (
                  fds, describe(p), first_difference(open(linked, "rb").read(), want)))
        os.unlink(linked + ".2")
    check(left[0] == left[1] and b"apsp" not in left[1],
          "stderr closed: a failed in-place run left %r, with stderr open %r" % (left[1][:120],
                                                                                 left[0][:120]))
    # The OpenCL build log (APSP_SHOW_BUILD=1, printed while the output is open) with stderr
    # closed; --kernel-cache=off so that there is a build.
    listed = apsp.run(["--list-devices"], solve=False).stdout
    if b"(opencl backend)" not in listed:
        print("no OpenCL device: the build-log case is skipped")
        check(os.environ.get("APSP_TEST_REQUIRE_DEVICE") != "1",
              "APSP_TEST_REQUIRE_DEVICE=1: no OpenCL device for the build-log case")
        return
    bin_out = os.path.join(d, "o.bin")
    p = apsp.run(["--backend=opencl", "--kernel-cache=off", example, bin_out],
                 env=dict(os.environ, APSP_SHOW_BUILD="1"), preexec_fn=closing(2))
    got = open(bin_out, "rb").read() if os.path.exists(bin_out) else b""
    check(p.returncode == 0 and got == want, "APSP_SHOW_BUILD=1 with stderr closed: exit %d, %s"
          % (p.returncode, first_difference(got, want)))


def test_signal(apsp, work, check):
    """SIGTERM or SIGINT during a long solve removes the temporary file and writes nothing."""
    out_dir = os.path.join(work, "signal")
    os.mkdir(out_dir)
    big = os.path.join(work, "big.in")
    v = 4000  # long enough to still be computing when the signal comes
    with open(big, "wb") as f:
        f.write(hw3(v, v, [(i, (i * 7 + 1) % v, i % 100) for i in range(v)]))
    out = os.path.join(out_dir, "big.out")
    for sig in (signal.SIGTERM, signal.SIGINT):
        proc = subprocess.Popen([apsp.exe] + apsp.extra + [big, out], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while (not holds_temp_file(proc, out_dir) and proc.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.002)
        seen = holds_temp_file(proc, out_dir)
        time.sleep(0.05)  # past the read, into the solve
        finished_early = proc.poll() is not None
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        name = signal.Signals(sig).name
        check(seen, "%s: the temporary output file never appeared" % name)
        if finished_early:
            print("%s: the run ended before the signal (exit %d); nothing to check"
                  % (name, proc.returncode))
            if os.path.exists(out):
                os.unlink(out)
            continue
        check(proc.returncode == -sig, "%s: exit %s, expected death by the signal: %r"
              % (name, proc.returncode, err))
        check(os.listdir(out_dir) == [], "%s: left %s" % (name, os.listdir(out_dir)))


def test_negative(apsp, work, check):
    """Negative weights: distances below 0 in every output format, zero-weight cycles fine, a
    negative cycle exit 7 with one line naming a vertex on it and nothing written, a weight
    beyond the rule refused at its line."""
    d = os.path.join(work, "negative")
    os.mkdir(d)

    def graph(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    good = graph("good.txt", "0 1 5\n1 2 -3\n0 2 4\n2 3 -1\n3 1 5\n")
    out = os.path.join(d, "good.out.txt")
    p = apsp.run([good, out])
    check(p.returncode == 0 and open(out).read() == "0 5 2 1\ninf 0 -3 -4\ninf 4 0 -1\ninf 5 2 0\n",
          "negative weights, text output: %s" % describe(p))
    p = apsp.run([good, "-"])
    want = [0, 5, 2, 1, INF, 0, -3, -4, INF, 4, 0, -1, INF, 5, 2, 0]
    check(p.returncode == 0 and p.stdout == struct.pack("<16i", *want),
          "negative weights, hw3 output: %s" % describe(p))
    zero = graph("zero.txt", "0 1 -2\n1 0 2\n1 2 -1\n")
    p = apsp.run([zero, "--output-format=text", "-"])
    check(p.returncode == 0 and p.stdout == b"0 -2 -3\n2 0 -1\ninf inf 0\n",
          "a zero-weight cycle with a negative edge: %s" % describe(p))

    cycle = graph("cycle.txt", "0 1 1\n1 2 -3\n2 0 1\n2 3 1\n")
    out = os.path.join(d, "cycle.out")
    p = apsp.run([cycle, out])
    err = p.stderr.decode(errors="replace")
    m = re.search(r"negative cycle: vertex (\d+)", err)
    check(p.returncode == EXIT_NEGATIVE_CYCLE and one_error_line(p) and m and int(m[1]) in (0, 1, 2),
          "a negative cycle: exit 7 and one line naming a vertex on it: %s" % describe(p))
    check(sorted(os.listdir(d)) == ["cycle.txt", "good.out.txt", "good.txt", "zero.txt"],
          "a negative cycle left %s" % os.listdir(d))
    with open(out, "wb") as f:
        f.write(b"the old result")
    p = apsp.run([cycle, out])
    check(p.returncode == EXIT_NEGATIVE_CYCLE and open(out, "rb").read() == b"the old result"
          and not temp_files(d), "a negative cycle must leave the existing output: %s"
          % describe(p))
    p = apsp.run([cycle, "-"])
    check(p.returncode == EXIT_NEGATIVE_CYCLE and p.stdout == b"",
          "a negative cycle writes nothing to standard output: %s" % describe(p))
    p = apsp.run(["--undirected", zero, "-"])
    check(p.returncode == EXIT_NEGATIVE_CYCLE, "--undirected with a negative edge is a negative "
          "cycle (as SciPy's directed=False): %s" % describe(p))

    deep = graph("deep.txt", "0 1 -536870912\n1 2 1\n")
    p = apsp.run(["--dtype=int32", deep, "/dev/null"])
    check(p.returncode == EXIT_INPUT and b"line 1" in p.stderr and b"too negative" in p.stderr,
          "--dtype=int32: a weight below -(INF - 1) / (V - 1): %s" % describe(p))
    p = apsp.run(["--help=all"], solve=False)
    check(b"7 negative cycle" in p.stdout, "--help=all names exit code 7")

