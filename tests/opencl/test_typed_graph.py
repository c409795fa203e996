"""int64, float32 and float64 graphs whose matrix an OpenCL device makes from the edges (issue 37.2,
cl/graph_fill.cl, src/opencl/graph_io.c) on PoCL's CPU device, APSP_OVERLAP=on:

    pytest_main.py test_typed_graph.py --apsp=APSP

- edge lists with parallel edges (the least counts), negative weights (no negative cycle: each
  weight is a non-negative one plus p(u) - p(v)), self-loops (negative ones too: the diagonal
  stays 0) and -0 weights (read as +0), V from 1 to 200, give the pthread backend's .npy byte for
  byte (floats at its round depth, with a fraction, so that the float kernels run);
  int64 also SciPy's distances (its weights are past int32's rule and within 2^53, where float64
  is exact), and with the compare-and-swap loop forced where atom_min is (-DFILL_FORCE_CAS);
- APSP_SHOW_BUILD=1 shows the device's line "rows 0-(V-1) of the TYPE matrix made on the device
  from E edges": the graph path ran, no V x V host matrix went up;
- two devices (POCL_DEVICES="pthread pthread", -d cpus) hand their float64 rows on at once: the
  same bytes;
- a negative cycle ends each type with exit 7 and the old OUTPUT kept.

Skips without an OpenCL CPU device or without NumPy and SciPy (a failure where
APSP_TEST_REQUIRE_DEVICE=1).
"""
import os
import random
import subprocess
import tempfile

import pytest
from files import read
from harness import need
from sanitizers import leak_env

np = need("numpy", "python3-numpy")
floyd_warshall = need("scipy.sparse.csgraph", "python3-scipy").floyd_warshall

# Floats at the pthread backend's round depth, 128 (their sums round in the blocked order);
# int64's bytes are the same at any depth, and PoCL builds depth 32's kernels in a fraction of
# the time.
DEVICE = ["--backend=opencl", "-d", "cpu"]
HOST = ["--backend=cpu"]
TILE = {"int64": "--tile=32", "float32": "--tile=128", "float64": "--tile=128"}
OLD = b"the old output, which a failed run must keep\n"
TYPES = ["int64", "float32", "float64"]
INF64 = 2**62 - 1  # int64's unreachable marker


@pytest.fixture(scope="module")
def cache():
    """The kernel cache of this file's runs: each program built once."""
    with tempfile.TemporaryDirectory(prefix="apsp-test-typed-graph-") as directory:
        yield directory


def run(apsp, cache, args, **extra):
    """apsp with the kernel cache in the file's own directory."""
    env = leak_env({k: v for k, v in os.environ.items() if not k.startswith("APSP_")})
    env["XDG_CACHE_HOME"] = cache
    env.update({"APSP_OVERLAP": "on", "APSP_SHOW_BUILD": "1"}, **extra)
    return subprocess.run([apsp] + args, capture_output=True, env=env, timeout=300)


def weight_text(rng, dtype, base):
    """A weight of about `base`: whole for int64, with a fraction for the floats."""
    return str(base) if dtype == "int64" else repr(base + rng.choice([0.25, 0.5, 0.125, 0.0]))


def make_graph(rng, v, dtype, cycle):
    """(lines, edges as (u, v, w) with w a float): parallel edges, negative weights by
    potentials, self-loops, -0; with `cycle`, a negative cycle 0 -> 1 -> 0."""
    scale = 10**6 if dtype == "int64" else 10  # int64: past int32's rule for V = 200 (5.4e6)
    potential = [rng.randint(0, 5 * scale) for _ in range(v)]
    lines, edges = [], []

    def add(a, b, text):
        lines.append("%d %d %s" % (a, b, text))
        edges.append((a, b, float(text)))

    for _ in range(4 * v):
        a, b = rng.randrange(v), rng.randrange(v)
        if a == b:
            add(a, b, rng.choice(["-3", "0", "-0.0", "7"]) if dtype != "int64" else "-3")
            continue
        base = rng.randint(0, 100 * scale) + potential[a] - potential[b]
        add(a, b, weight_text(rng, dtype, base))
        if rng.random() < 0.2:  # a parallel edge, heavier or lighter
            add(a, b, weight_text(rng, dtype, base + rng.randint(-scale, scale)))
        if rng.random() < 0.05 and potential[a] <= potential[b] and dtype != "int64":
            add(a, b, "-0.0")
    if dtype != "int64" and not any(w != int(w) for _, _, w in edges):
        add(0, 0, "0.5")  # a fraction (a self-loop: ignored), so that the float kernels run
    if cycle and v > 1:
        add(0, 1, "-%d" % (10**9 if dtype == "int64" else 10**4))
        add(1, 0, "1")
    return "\n".join(lines) + "\n", edges


def scipy_distances(v, edges):
    """SciPy's Floyd-Warshall over the least of each pair's edges, self-loops left out."""
    m = np.full((v, v), np.inf)
    for a, b, w in edges:
        if a != b:
            m[a, b] = min(m[a, b], w)
    return floyd_warshall(m, directed=True)


def made_line(r, v, dtype, count):
    text = r.stderr.decode(errors="replace")
    return ("rows 0-%d of the %s matrix made on the device from %d edges" % (v - 1, dtype, count)
            in text)


def check_graph(apsp, cache, check, work, rng, v, dtype):
    text, edges = make_graph(rng, v, dtype, cycle=False)
    inp = os.path.join(work, "g-%s-%d.txt" % (dtype, v))
    with open(inp, "w") as f:
        f.write(text)
    ref, out = inp + ".cpu.npy", inp + ".cl.npy"
    what = "%s V=%d (%d edges)" % (dtype, v, len(edges))
    args = ["--vertices=%d" % v, "--dtype=" + dtype, TILE[dtype], inp]
    host = run(apsp, cache, HOST + [a for a in args if a != "--tile=32"] + [ref])
    if not check.report(what + ": the pthread backend solves it", host.returncode == 0,
                  host.stderr.decode(errors="replace").strip()[-300:]):
        return
    extra = [{}]
    if dtype == "int64" and v > 100:
        extra.append({"APSP_BUILD_OPTIONS": "-DFILL_FORCE_CAS"})
    for env in extra:
        how = what + (" with the compare-and-swap loop" if env else "")
        r = run(apsp, cache, DEVICE + args + [out], **env)
        check.report(how + ": the device's .npy is the pthread backend's, byte for byte",
               r.returncode == 0 and read(out) == read(ref),
               r.stderr.decode(errors="replace").strip()[-300:])
        check.report(how + ": the matrix was made on the device from the edges",
               made_line(r, v, dtype, len(edges)))
    if dtype == "int64":
        cells = np.load(out)
        got = np.where(cells == INF64, np.inf, cells.astype(np.float64))
        want = scipy_distances(v, edges)
        check.report(what + ": SciPy's distances", np.array_equal(got, want))
    return args, ref


def check_two_devices(apsp, cache, check, args, ref, dtype):
    out = ref + ".two.npy"
    r = run(apsp, cache, ["--backend=opencl", "-d", "cpus"] + args +
            [out], POCL_DEVICES="pthread pthread")
    check.report("%s on two devices: the pthread backend's bytes" % dtype,
           r.returncode == 0 and read(out) == read(ref),
           r.stderr.decode(errors="replace").strip()[-300:])


def check_cycle(apsp, cache, check, work, rng, dtype):
    text, _ = make_graph(rng, 130, dtype, cycle=True)
    inp = os.path.join(work, "cycle-%s.txt" % dtype)
    with open(inp, "w") as f:
        f.write(text)
    out = inp + ".npy"
    with open(out, "wb") as f:
        f.write(OLD)
    r = run(apsp, cache, DEVICE + ["--dtype=" + dtype, TILE[dtype], inp, out])
    check.report("%s with a negative cycle: exit 7, the old OUTPUT kept" % dtype,
           r.returncode == 7 and read(out) == OLD and b"negative cycle" in r.stderr,
           "exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace").strip()[-300:]))


@pytest.mark.parametrize("dtype", TYPES)
def test_typed_graph(apsp_path, device, work, cache, check, dtype):
    rng = random.Random("37:" + dtype)
    for v in (1, 7, 200):
        made = check_graph(apsp_path, cache, check, work, rng, v, dtype)
    if made and dtype == "float64":
        check_two_devices(apsp_path, cache, check, made[0], made[1], dtype)
    check_cycle(apsp_path, cache, check, work, rng, dtype)
