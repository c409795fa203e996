"""Chosen sources on an OpenCL device with the outputs prepared beside the rounds (issue 37.4,
src/sssp/on_device.c, src/opencl/sssp.c): PoCL's CPU device with APSP_OVERLAP=on, the path a
GPU takes by default.

    pytest_main.py test_overlap_sources.py --apsp=APSP --testcases=TESTCASES_DIR

- `--method=bellman-ford --sources=...` on the device: hw3 and .npy int32 rows, int64, float32
  and float64 .npy rows, and --predecessors (its file prepared too), in one batch and in several
  (a --device-memory that holds 7 sources' blocks, so the pinned batches serve every batch):
  distances byte for byte the pthread backend's Bellman-Ford; predecessors the device's rule
  (cl/sssp.cl: the in-edge of least u that is tight under those distances, checked here from the
  edges; where paths tie it may differ from the host's tree); --stats-json says the device ran
  it and overlapped_s is above 0 (0 with APSP_OVERLAP=off);
- in a build with -Dfault_injection=true: each of the device's last calls (the rows' reads into
  the pinned batches and the waits for them, after the outputs were prepared) fails the run
  with the old OUTPUT and the old --predecessors file kept byte for byte, no temporary file, one
  line; and a temporary file truncated once its mapping is populated (APSP_FAULT_PAUSE=prepared)
  ends in exit 4 with the old OUTPUT kept;
- OpenCL's platforms load on a thread beside the read where a device is named and the solver
  opens only after the read (src/cli/warm_up.c): warm_up_s above 0 for chosen sources and for
  a text edge list, 0 for a hw3 matrix solve (its header gives V before the edges) and for
  --backend=cpu; the rows the same either way.

Skips without an OpenCL CPU device, unless APSP_TEST_REQUIRE_DEVICE=1.
"""
import array
import ast
import os
import random
import struct

import pytest
from files import read, temp_fd
from harness import skip
from test_overlap import OLD, kept, paused, run, stats_of

GRAPH = "v333-random"  # all weights above 0: the device picks the predecessors
SOURCES = ["--method=bellman-ford", "--sources=0-40,100,300-332"]
DEVICE = ["--backend=opencl", "-d", "cpu", "--kernel-cache=off"] + SOURCES
HOST = ["--backend=cpu"] + SOURCES
# (what, extra options, output's extension): every row type the device keeps.
KINDS = [("int32 hw3", [], "out"), ("int32 .npy", [], "npy"),
         ("int64", ["--dtype=int64"], "npy"), ("float32", ["--dtype=float32"], "npy"),
         ("float64", ["--dtype=float64"], "npy")]
# 7 sources' blocks and the graph's 1332 edges (tests/sssp/test_sssp_device.py: memory_for).
SEVERAL_BATCHES = "--device-memory=%d" % int((4 * 334 + 8 * 1332 + 64 + 7 * (20 * 333 + 48))
                                             / 0.9 + 1)


NO_PREDECESSOR = -9999
NPY_TYPES = {"<i4": "i", "<i8": "q", "<f8": "d"}


def read_npy(path):
    """A little-endian int32, int64 or float64 .npy's rows, as lists."""
    data = read(path)
    size = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + size].decode())
    cells = array.array(NPY_TYPES[header["descr"]], data[10 + size:])
    rows, cols = header["shape"]
    return [cells[r * cols:(r + 1) * cols] for r in range(rows)]


def read_edges(path):
    """The hw3 input's (u, v, w) triples."""
    data = read(path)
    edges = struct.unpack("<i", data[4:8])[0]
    cells = array.array("i", data[8:8 + 12 * edges])
    return [tuple(cells[3 * i:3 * i + 3]) for i in range(edges)]


def sources_of(spec):
    ids = []
    for item in spec.split("=", 1)[1].split(","):
        first, _, last = item.partition("-")
        ids += range(int(first), int(last or first) + 1)
    return ids


def pred_rule_holds(inp, dist_path, pred_path, spec=SOURCES[1]):
    """Every row's predecessors the device's rule over these distances (all weights > 0)."""
    edges, dist, pred = read_edges(inp), read_npy(dist_path), read_npy(pred_path)
    unreachable = max(max(row) for row in dist)
    for b, source in enumerate(sources_of(spec)):
        d, want = dist[b], [NO_PREDECESSOR] * len(dist[b])
        for u, v, w in sorted(edges):
            if (d[u] != unreachable and d[u] < d[v] and d[u] + w == d[v] and v != source and
                    want[v] == NO_PREDECESSOR):
                want[v] = u
        if list(pred[b]) != want:
            return False
    return True


@pytest.fixture(scope="module")
def apsp(apsp_path, testcases):
    """apsp's path; the file skipped without an OpenCL CPU device."""
    probe = run(apsp_path, DEVICE + [os.path.join(testcases, GRAPH + ".in"), "/dev/null"])
    if probe.returncode != 0:
        skip("no OpenCL CPU device: " + probe.stderr.decode(errors="replace").strip())
    return apsp_path


def compare(apsp, inp, directory, what, extra, ext):
    mine, ref = (os.path.join(directory, "%s.%s" % (who, ext)) for who in ("cl", "cpu"))
    pred = os.path.join(directory, "cl.pred.npy")
    with_pred = "--predecessors" in what
    r = run(apsp, DEVICE + extra + ["--stats-json"] + (["--predecessors=" + pred]
                                                       if with_pred else []) + [inp, mine])
    c = run(apsp, HOST + extra + [inp, ref], overlap="off")
    stats = stats_of(r)
    same = r.returncode == 0 and c.returncode == 0 and read(mine) == read(ref)
    same = same and (not with_pred or pred_rule_holds(inp, ref, pred))
    on_device = stats.get("backend") == "opencl" and "bellman-ford on" in stats.get("method", "")
    overlapped = stats.get("overlapped_s", -1)
    assert same and on_device and overlapped > 0, (
        "%s: the pthread backend's bytes, on the device, overlapped_s %s: %s" % (
            what, overlapped,
            "" if same and on_device else "%s %s" % (r.stderr[-300:], c.stderr[-200:])))


@pytest.mark.parametrize("several", [False, True], ids=["one-batch", "several-batches"])
@pytest.mark.parametrize("what, extra, ext", KINDS + [
    ("%s with --predecessors" % dtype, ["--dtype=" + dtype], "npy")
    for dtype in ("int32", "int64", "float64")], ids=lambda x: x if isinstance(x, str) else "")
def test_outputs(apsp, testcases, work, several, what, extra, ext):
    inp = os.path.join(testcases, GRAPH + ".in")
    batches = [SEVERAL_BATCHES] if several else []
    name = " (several batches)" if batches else ""
    compare(apsp, inp, work, what + name, extra + batches, ext)


def test_predecessors_of_hubs(apsp, work):
    """Two targets with many tight in-edges, from tails spread over the whole graph, given in a
    shuffled order: the least tight tail wins. The graph is large enough (E > 2^17) that the
    host's threads place the in-edges, in whatever order they come, and sort each target's
    (src/opencl/sssp_setup.c: qsort past 16, insertion up to 16)."""
    v = 70000
    chain = [(u, u + 1, 1) for u in range(v - 3)] + [(u, u + 2, 1) for u in range(v - 4)]
    far = 40000  # hub h's in-edge from u weighs far - dist(0, u): every one of them tight
    # (tails late in each thread's share of the vertices, the least of them in the first share:
    # a thread after the first one places its tails first, unsorted)
    hubs = [(u, v - 2, far - (u + 1) // 2) for u in range(v // 2 - 700, v - 2, 7)]
    hubs += [(u, v - 1, far - (u + 1) // 2) for u in range(v - 3, v // 2 - 3000, -(v // 24))]
    edges = chain + hubs
    random.Random(7).shuffle(edges)
    inp = os.path.join(work, "hubs.in")
    with open(inp, "wb") as f:
        f.write(struct.pack("<ii", v, len(edges)))
        f.write(b"".join(struct.pack("<iii", *e) for e in edges))
    dist, pred = os.path.join(work, "hubs.npy"), os.path.join(work, "hubs.pred.npy")
    want = [min(u for u, t, _ in hubs if t == h) for h in (v - 2, v - 1)]
    for extra in ([], ["--threads=1"]):
        r = run(apsp, DEVICE[:-1] + ["--sources=0", "--predecessors=" + pred] + extra +
                [inp, dist])
        got = list(read_npy(pred)[0][v - 2:]) if r.returncode == 0 else r.stderr[-300:]
        assert got == want, "%s: the hubs' least tight tails %s, got %s" % (extra, want, got)


def test_overlap_off(apsp, testcases, work):
    inp = os.path.join(testcases, GRAPH + ".in")
    off = stats_of(run(apsp, DEVICE + ["--stats-json", inp, os.path.join(work, "off.out")],
                       overlap="off"))
    assert off.get("overlapped_s") == 0, "APSP_OVERLAP=off: overlapped_s is 0: %s" % str(off)[:200]


OTHER_ROUNDING = 1e-4  # seconds: 6 decimals in each of some 12 fields, and the clock's reads


def test_platforms_beside_read(apsp, testcases, work, check):
    hw3 = os.path.join(testcases, GRAPH + ".in")
    text = os.path.join(work, "edges.txt")
    with open(text, "w") as f:
        f.writelines("%d %d %d\n" % e for e in read_edges(hw3))
    out = os.path.join(work, "warm.out")
    cases = [("chosen sources on the device", DEVICE + [hw3], True),
             ("a text edge list's matrix on the device",
              ["--backend=opencl", "-d", "cpu", "--kernel-cache=off", text], True),
             ("a hw3 matrix on the device (V from the header, the solver before the edges)",
              ["--backend=opencl", "-d", "cpu", "--kernel-cache=off", hw3], False),
             ("chosen sources on --backend=cpu", HOST + [hw3], False)]
    rows = {}
    for what, args, beside in cases:
        r = run(apsp, ["--stats-json"] + args + [out])
        stats = stats_of(r)
        warm = stats.get("warm_up_s", -1)
        rows[what] = read(out) if r.returncode == 0 else None
        check.report("%s: warm_up_s %s 0" % (what, ">" if beside else "=="),
                     r.returncode == 0 and (warm > 0 if beside else warm == 0),
                     "warm_up_s %s: %s" % (warm, r.stderr[-300:]))
        # The steps are parts of the total, none counted twice: other_s, the rest, is not
        # negative (to the microseconds that the JSON's rounding and the clock reads leave).
        other = stats.get("other_s", -1)
        check.report("%s: other_s %s >= 0, the steps within total_s" % (what, other),
                     other >= -OTHER_ROUNDING, str(stats)[:400])
    check.report("the rows of chosen sources are the same with and without the load beside",
                 rows["chosen sources on the device"] == rows["chosen sources on --backend=cpu"])


def test_faults(apsp, testcases, work, check):
    directory = work
    inp = os.path.join(testcases, GRAPH + ".in")
    out, pred = os.path.join(directory, "old.out"), os.path.join(directory, "old.pred.npy")
    args = DEVICE + ["--predecessors=" + pred, inp, out]
    counted = run(apsp, args, APSP_FAULT_COUNT="1").stderr.decode(errors="replace")
    if "apsp-fault:" not in counted:
        pytest.skip("failures in the rows' download: no -Dfault_injection=true")
    cl = int(counted.split("apsp-fault:")[1].split()[1].split("=")[1])
    # The last four: the predecessors' and the distances' reads and the waits for them.
    for n in range(cl - 3, cl + 1):
        for path in (out, pred):
            with open(path, "wb") as f:
                f.write(OLD)
        r = run(apsp, args, APSP_FAULT="cl:%d" % n)
        ok, detail = kept(out, directory, r, out)
        check.report("the download's device call cl:%d fails: the old OUTPUT and --predecessors "
                     "kept"
                     % n, r.returncode != 0 and ok and read(pred) == OLD, detail)
    with open(out, "wb") as f:
        f.write(OLD)
    stopped, r = paused(apsp, DEVICE + [inp, out],
                        lambda pid: os.truncate(temp_fd(pid, directory), 0))
    ok, detail = kept(out, directory, r, out)
    check.report("its temporary file truncated once the mapping is populated: exit 4, the old "
                 "OUTPUT "
                 "kept", stopped and ok and r.returncode == 4 and b"truncated" in r.stderr, detail)

