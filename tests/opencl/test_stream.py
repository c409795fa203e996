"""Streaming from host memory (src/drivers/stream.c, src/opencl/stream.c) on the OpenCL device.

    pytest_main.py test_stream.py::test_TEST --apsp=APSP --exe gen-graph GEN_GRAPH
        --testcases=TESTCASES_DIR

A --device-memory below the matrix makes the solve stream it through the device in super-rounds
of K pivots; every output must equal the pthread backend's byte for byte. The caps are computed
from what the device says streaming needs at least (a run with a 1K cap is refused with "needs
at least ... (panels of U rows and 4 blocks of U)", U the row unit): a cap of
    4n * (4T + 4U) + K * (8n + 16U)
(the T-row panels and 4 blocks of U rows; per pivot a row in each of the two K-row panels and a
column of each block) gives K pivots per super-round and blocks of U rows, (n - K) / U blocks
per super-round.

TEST:
  quick          every graph shape at round depths 8 to 64, both kernel families, K from T up
                 (a --max-buffer-bytes of T rows lowers U to T), 7-16 blocks per super-round
  slow           the sweep: round depths 8-128, six shapes, K = U, 2U and the most, two sizes
  refusals       --device-memory and APSP_DEVICE_MEMORY values refused; too small to stream;
                 several devices do not stream; a matrix too large for the host
  report         -v, --stats-json and APSP_PROFILE=1 say what streaming did

Each skips without an OpenCL device, unless APSP_TEST_REQUIRE_DEVICE=1.
"""
import json
import os
import re
import struct
import subprocess

import pytest
from harness import EXIT_MEMORY, EXIT_NEGATIVE_CYCLE, EXIT_USAGE, skip

GPU_SHAPE = "CPU_KERNELS=0,GROUP_ROWS=8,GROUP_COLS=16,THREAD_ROWS=8,THREAD_COLS=8,VECTOR=4,PIVOT_SPLIT=2"


def stream_cost(n, tile, unit):
    """The device bytes of a streamed int32 solve (src/opencl/stream_prepare.c): what does not
    grow with K (the in-core T-row panels and 4 blocks of U rows), and what each pivot adds (its
    row in each of the two K-row panels and its column of each block)."""
    return 4 * n * (4 * tile + 4 * unit), 8 * n + 16 * unit


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("APSP_") or k == "APSP_TEST_REQUIRE_DEVICE"}
    env.update(extra)
    return env


class Ctx:
    def __init__(self, apsp, gen, cases, work, check):
        self.apsp, self.gen, self.cases, self.work, self.check = apsp, gen, cases, work, check
        self.references = {}

    def run(self, args, env=None):
        p = subprocess.run([self.apsp] + args, capture_output=True, stdin=subprocess.DEVNULL,
                           env=env or clean_env(), timeout=300)
        p.err = p.stderr.decode(errors="replace")
        return p

    def graph(self, shape, v, seed):
        path = os.path.join(self.work, "%s-%d-%d.in" % (shape, v, seed))
        if not os.path.exists(path):
            edges = {"dense": 0, "chain": v - 1}.get(shape, v * 12)
            subprocess.run([self.gen, shape, str(v), str(edges), str(seed), path], check=True)
        return path

    def reference(self, graph):
        """The pthread backend's output for the graph."""
        if graph not in self.references:
            out = os.path.join(self.work, os.path.basename(graph) + ".cpu")
            p = self.run(["--backend=cpu", graph, out])
            self.check(p.returncode == 0, "%s on the pthread backend: %s" % (graph, p.err.strip()))
            with open(out, "rb") as f:
                self.references[graph] = f.read()
        return self.references[graph]

    def least(self, graph, args):
        """(n, U) from the refusal of a 1K cap."""
        p = self.run(["--backend=opencl", "--device-memory=1K"] + args + [graph, "/dev/null"])
        m = re.search(r"streaming the (\d+) x \d+ distance matrix .* \(panels of (\d+) rows", p.err)
        if not self.check(p.returncode == EXIT_MEMORY and m, "a 1K cap: exit %d: %s"
                          % (p.returncode, p.err.strip())):
            return None
        return int(m[1]), int(m[2])

    def streamed(self, graph, args, tile, pivots, what):
        """Solves with the cap for `pivots` (None: the most, -1 for K = U); returns (K, blocks) or
        None; checks the output against the pthread backend's."""
        args = args + ["--tile=%d" % tile]
        if TILE_ROWS in args:  # a buffer cap of T rows of n
            args = [a for a in args if a != TILE_ROWS]
            shape = self.least(graph, args)
            if shape:
                args = args + ["--max-buffer-bytes=%d" % (4 * tile * shape[0])]
                shape = self.least(graph, args)
        else:
            shape = self.least(graph, args)
        if not shape:
            return None
        n, unit = shape
        in_core = 4 * n * (n + 4 * tile)
        if pivots is None:
            k = max(unit, (n // 4 - unit) // unit * unit)
        else:
            k = unit * pivots
        buffer = [int(a.split("=")[1]) for a in args if a.startswith("--max-buffer-bytes=")]
        if buffer:  # K rows are one buffer
            k = min(k, buffer[0] // (4 * n) // unit * unit)
        fixed, per_pivot = stream_cost(n, tile, unit)
        cap = fixed + k * per_pivot + per_pivot * unit // 8
        if cap >= in_core:
            k = (in_core - fixed - 1) // per_pivot // unit * unit
            cap = fixed + k * per_pivot
        if k < unit:
            print("skip %s: no cap streams n = %d with U = %d" % (what, n, unit))
            return None
        out = os.path.join(self.work, "out.bin")
        if os.path.exists(out):
            os.unlink(out)
        args = ["-v", "--backend=opencl", "--device-memory=%d" % cap] + args
        p = self.run(args + [graph, out])
        m = re.search(r"streamed from host memory: (\d+) pivots per super-round \((\d+) "
                      r"super-rounds\), (\d+) blocks of (\d+) rows", p.err)
        ok = self.check(p.returncode == 0 and m,
                        "%s: exit %d, %s" % (what, p.returncode, p.err.strip()))
        if not ok:
            return None
        got = (int(m[1]), int(m[3]))
        self.check(got[0] == k, "%s: K = %d, expected %d" % (what, got[0], k))
        with open(out, "rb") as f:
            self.check(f.read() == self.reference(graph), "%s: output differs from the pthread "
                       "backend's" % what)
        print("ok   %s: n = %d, U = %d, K = %d, %d blocks per super-round"
              % (what, n, unit, got[0], got[1]), flush=True)
        return got


@pytest.fixture
def ctx(apsp_path, exe, testcases, work, check):
    """The runs' context; the test skipped without an OpenCL device."""
    c = Ctx(apsp_path, exe["gen-graph"], testcases, work, check)
    p = c.run(["--list-devices"])
    if "(opencl backend)" not in p.stdout.decode(errors="replace"):
        skip("no OpenCL device")
    return c


# In a run's arguments: a --max-buffer-bytes of T rows, which lowers the row unit to T.
TILE_ROWS = "--max-buffer-bytes=TILE_ROWS"


def test_quick(ctx):
    seen = []
    runs = [
        # (shape, V, tile, extra args, K in units or None for the most)
        ("random", 1000, 32, [], 1),
        ("zeros", 1000, 32, [], None),
        ("disconnected", 900, 64, [], 1),
        ("chain", 700, 64, ["--kernel-params=" + GPU_SHAPE], 1),
        ("dups", 250, 16, [TILE_ROWS], 1),
        ("dense", 120, 8, [TILE_ROWS], 1),
        # faults-opencl-stream's kernels: compiled here first, since PoCL caches them and a
        # compile under AddressSanitizer reports LLVM's own leaks.
        ("random", 333, 32, ["--kernel-params=GROUP_ROWS=8,THREAD_ROWS=4"], 1),
        # Negative weights (no negative cycle): the kernels' negative form, both families.
        ("negative", 700, 32, [], 1),
        ("negative", 900, 32, ["--kernel-params=" + GPU_SHAPE], 1),
    ]
    for shape, v, tile, extra, k in runs:
        graph = ctx.graph(shape, v, v + tile)
        got = ctx.streamed(graph, extra, tile, k, "%s V=%d tile %d %s" % (shape, v, tile, extra))
        if got:
            seen.append((tile, got))
    # Judge-style cases of testcases/, K = T.
    for name, tile in (("v333-random", 16), ("v500-disconnected", 16), ("v250-zeros", 8)):
        graph = os.path.join(ctx.cases, name + ".in")
        got = ctx.streamed(graph, [TILE_ROWS], tile, 1, "%s tile %d" % (name, tile))
        if got:
            seen.append((tile, got))
    # A negative cycle found after a streamed solve: exit 7, the message, no output.
    graph = ctx.graph("negcycle", 700, 7)
    shape = ctx.least(graph, ["--tile=32"])
    if shape:
        n, unit = shape
        out = os.path.join(ctx.work, "cycle.bin")
        fixed, per_pivot = stream_cost(n, 32, unit)
        p = ctx.run(["--backend=opencl", "--tile=32", "--device-memory=%d"
                     % (fixed + unit * per_pivot), graph, out])
        ctx.check(p.returncode == EXIT_NEGATIVE_CYCLE and "negative cycle: vertex" in p.err
                  and not os.path.exists(out), "streamed negative cycle: exit %d, %s"
                  % (p.returncode, p.err.strip()))
        print("ok   negcycle V=700 tile 32 streamed: exit %d" % p.returncode, flush=True)
    ctx.check(any(k == tile for tile, (k, _) in seen), "no run had K = T")
    ctx.check(any(k > tile for tile, (k, _) in seen), "no run had K > T")
    ctx.check(any(2 <= blocks <= 16 for _, (_, blocks) in seen), "no run had 2-16 blocks")


def test_slow(ctx):
    for tile in (8, 16, 32, 64, 128):
        for shape in ("random", "zeros", "dups", "disconnected", "chain", "dense"):
            for v in (700, 1300) if tile < 128 else (1300, 2100):
                graph = ctx.graph(shape, v, tile * v)
                for k in (1, 2, None):
                    # K = T below the CPU kernels' 64-row blocks: a buffer cap lowers them.
                    small = tile < 32 and k == 1
                    extra = [TILE_ROWS] if small else []
                    ctx.streamed(graph, extra, tile, k,
                                 "%s V=%d tile %d K=%s" % (shape, v, tile, k or "most"))
        graph = ctx.graph("random", 1000, tile)
        ctx.streamed(graph, ["--kernel-params=" + GPU_SHAPE], max(tile, 32), 1,
                     "gpu shape tile %d" % max(tile, 32))


def expect(ctx, args, code, needles, what, env=None):
    p = ctx.run(args, env)
    lines = p.err.strip().splitlines()
    ok = p.returncode == code and len(lines) == 1 and all(n in p.err for n in needles)
    ctx.check(ok, "%s: exit %d, expected %d with %s: %s" % (what, p.returncode, code, needles,
                                                           p.err.strip()))
    if ok:
        print("ok   %s: %s" % (what, lines[0]))


def hw3_header(path, v):
    with open(path, "wb") as f:
        f.write(struct.pack("<ii", v, 0))


def test_refusals(ctx):
    graph = ctx.graph("random", 1000, 1)
    out = os.path.join(ctx.work, "refused.bin")
    for bad in ("0", "-1", "12Q", ""):
        expect(ctx, ["--device-memory=" + bad, graph, out], EXIT_USAGE, ["--device-memory"],
               "--device-memory=" + bad)
    expect(ctx, [graph, out], EXIT_USAGE, ["APSP_DEVICE_MEMORY=lots"], "APSP_DEVICE_MEMORY=lots",
           clean_env(APSP_DEVICE_MEMORY="lots"))
    expect(ctx, ["--backend=opencl", "--device-memory=64K", graph, out], EXIT_MEMORY,
           ["streaming", "needs at least", "(--device-memory)"], "too small to stream")
    # The least that streaming needs, said for the distances' type: int64 cells take twice.
    need = {}
    for dtype in ("int32", "int64"):
        p = ctx.run(["--backend=opencl", "--tile=32", "--device-memory=64K", "--dtype=" + dtype,
                     graph, out])
        m = re.search(r"needs at least ([0-9.]+) MiB", p.err)
        if ctx.check(p.returncode == EXIT_MEMORY and m, "--dtype=%s, 64K: exit %d: %s"
                     % (dtype, p.returncode, p.err.strip())):
            need[dtype] = float(m[1])
    ctx.check(len(need) < 2 or abs(need["int64"] - 2 * need["int32"]) < 0.02,
              "int64's least (%s) is not twice int32's" % need)
    expect(ctx, ["--backend=opencl", "--device=cpus", "--device-memory=1M", graph, out],
           EXIT_MEMORY, ["streaming from host memory runs on one device only"],
           "two devices, neither holds its share", clean_env(POCL_DEVICES="pthread pthread"))
    # A header that claims a matrix larger than the host: refused before any work, streaming
    # or not.
    huge = os.path.join(ctx.work, "huge.in")
    hw3_header(huge, 2000000)
    expect(ctx, ["--backend=opencl", "--device-memory=1G", huge, out], EXIT_MEMORY,
           ["V = 2000000", "this machine has"], "a matrix larger than the host")
    ctx.check(not os.path.exists(out), "a refused run left an output file")


def test_report(ctx):
    graph = ctx.graph("random", 1000, 5)
    out = os.path.join(ctx.work, "report.bin")
    cap = ["--backend=opencl", "--tile=32", "--device-memory=3M"]
    p = ctx.run(cap + ["--stats-json", graph, out])
    stats = json.loads(p.err.strip().splitlines()[-1]) if p.returncode == 0 else {}
    ctx.check(stats.get("streamed") is True and stats.get("stream_pivots", 0) > 0
              and stats.get("stream_bytes_up", 0) >= 4 * 1024 * 1024,
              "--stats-json while streaming: %s" % p.err.strip())
    p = ctx.run(cap + ["-v", graph, out], clean_env(APSP_PROFILE="1"))
    for needle in ("stream profile", "stream timeline, rows ", "two or more at once",
                   "streamed from host memory"):
        ctx.check(p.returncode == 0 and needle in p.err, "APSP_PROFILE=1 -v: no '%s': %s"
                  % (needle, p.err))
    p = ctx.run(["--backend=opencl", "--stats-json", graph, out])
    ctx.check(p.returncode == 0 and '"streamed":false' in p.err, "in core: %s" % p.err.strip())
    with open(out, "rb") as f:
        ctx.check(f.read() == ctx.reference(graph), "in core: output differs")
    print("ok   report")

