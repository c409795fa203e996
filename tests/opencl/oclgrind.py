"""The OpenCL path of the apsp command under Oclgrind, a simulated OpenCL device that checks
every kernel's memory accesses and, with --data-races, every work-item's against the others.

    pytest_main.py oclgrind.py::test_group --apsp=APSP --exe gen-graph GEN_GRAPH
        --exe oracle ORACLE --opt=group=GROUP             (GROUP: a key of GROUPS below)
    pytest_main.py oclgrind.py::test_uninit_demo --exe program OCLGRIND_UNINIT
                                          (the --uninitialized reproducer, both ways)
    pytest_main.py oclgrind.py::test_program --exe program TEST [--opt="args=ARG ..."]
                                          (a test program that checks its own answers)

Each run is `oclgrind --data-races --check-api --log LOG apsp --backend=opencl -v ...` on a small
graph from gen-graph (Oclgrind interprets every instruction, so V stays below 130): the `oclgrind`
command preloads Oclgrind's runtime, so its simulated GPU is the only OpenCL device apsp sees.
Oclgrind's memory checks (out-of-bounds reads and writes, in global, local and private memory)
are on by default. A run fails on any message in LOG (where Oclgrind writes its reports, its API
errors and its fatal errors), on a non-zero exit, on a device other than Oclgrind's and on an
output that differs from apsp-oracle's by a byte.

The groups are meson tests in suite 'oclgrind' (tests/opencl/meson.build), each run of a group a
test of its own; they cover round depths
16, 32, 64 and 128, the CPU kernels (CPU_KERNELS=1, the CPU row's shape) and the work-group
kernels (the shape the CPU row falls back to below tile 32, the GPU row's and the AMD row's
shapes), sizes that are and are not a multiple of the padded size (fw_pad), and matrices spread
over several row bands by a small --max-buffer-bytes.

    meson test -C build --suite oclgrind --print-errorlogs

test_program runs a test program (test-opencl-dtypes: the int64 and floating-point kernels against
their oracles) under the same checks: it fails on a non-zero exit or any message in the log.

test_uninit_demo runs tests/opencl/oclgrind_uninit.c's four cases with and without
--uninitialized and prints what Oclgrind says (docs/reliability.md, "Oclgrind"): it fails only
when a case is wrong or reported without --uninitialized, or when the control case is reported
with it; the two Oclgrind defects it shows are printed, not failed on.

Skips when `oclgrind` is not installed, unless APSP_TEST_REQUIRE_DEVICE=1 (CI) makes that a
failure (Debian: apt-get install oclgrind).
"""
import os
import re
import shlex
import shutil
import subprocess

import pytest
from harness import options as settings, skip
import tempfile

# The CPU row of src/opencl/params.c, as words, so that Oclgrind's GPU runs the CPU kernels.
CPU_KERNELS = "CPU_KERNELS=1,K_CHUNK=32,THREAD_ROWS=64,THREAD_COLS=64,GROUP_ROWS=1,GROUP_COLS=1," \
              "VECTOR=1"
# What the CPU row becomes below tile 32: the work-group kernels with 4 x 4 scalar micro-tiles.
CPU_WORK_GROUPS = "CPU_KERNELS=0,GROUP_ROWS=16,GROUP_COLS=16,THREAD_ROWS=4,THREAD_COLS=4," \
                  "VECTOR=1,PREFETCH=0"
# The GPU row (64 x 128 blocks of 8 x 8 int4 micro-tiles, prefetch) and the AMD row (64 x 128
# blocks of 4 x 8, 8-deep chunks), in full so that Oclgrind's own table row does not matter.
GPU_SHAPE = "CPU_KERNELS=0,GROUP_ROWS=8,GROUP_COLS=16,THREAD_ROWS=8,THREAD_COLS=8,VECTOR=4," \
            "PREFETCH=1,K_UNROLL=8,PIVOT_SPLIT=4,K_CHUNK=16"
GPU_SHAPE_NO_PREFETCH = "CPU_KERNELS=0,GROUP_ROWS=8,GROUP_COLS=16,THREAD_ROWS=8,THREAD_COLS=8," \
                        "VECTOR=4,PREFETCH=0,K_UNROLL=0,PIVOT_SPLIT=4,K_CHUNK=16"
AMD_SHAPE = "CPU_KERNELS=0,GROUP_ROWS=16,GROUP_COLS=16,THREAD_ROWS=4,THREAD_COLS=8,VECTOR=4," \
            "PREFETCH=1,PIVOT_SPLIT=4,K_CHUNK=8"
# The fallbacks (the table's last row): 4 x 4 int4 micro-tiles, phase 2 in one slab per block.
FALLBACKS = "CPU_KERNELS=0,GROUP_ROWS=16,GROUP_COLS=16,THREAD_ROWS=4,THREAD_COLS=4,VECTOR=4," \
            "PREFETCH=0,K_UNROLL=0,PIVOT_SPLIT=1,K_CHUNK=16"

# GROUP: [(what, graph (shape, V, E, seed), apsp arguments)]. The padded size n is a multiple of
# the tile and of the phase-3 block (64 x 64 for the CPU shapes, 64 x 128 for the GPU ones): V = 64
# needs no padding there, 80 does. Bands: a band holds whole multiples of lcm(tile, block height)
# rows and at most --max-buffer-bytes; where one such unit does not fit, the block height is
# halved (src/opencl/layout.c), so 16384 bytes of 128-int rows make bands of 32 rows.
GROUPS = {
    "cpu-kernels": [
        ("tile 32, V = 64 (no padding)", ("random", 64, 256, 1),
         ["--tile=32", "--kernel-params=" + CPU_KERNELS]),
        ("tile 64, V = 80 (padded to 128)", ("random", 80, 320, 2),
         ["--tile=64", "--kernel-params=" + CPU_KERNELS]),
        ("tile 128, V = 80 (padded to 128)", ("disconnected", 80, 300, 3),
         ["--tile=128", "--kernel-params=" + CPU_KERNELS]),
        ("tile 32, V = 128 in 4 bands of 32 rows", ("random", 128, 512, 4),
         ["--tile=32", "--max-buffer-bytes=16384", "--kernel-params=" + CPU_KERNELS]),
    ],
    "work-groups": [
        ("tile 16, V = 64 (no padding)", ("random", 64, 256, 5),
         ["--tile=16", "--kernel-params=" + CPU_WORK_GROUPS]),
        ("tile 16, V = 80 (padded to 128), 4 bands, the last all padding", ("chain", 80, 79, 6),
         ["--tile=16", "--max-buffer-bytes=16384", "--kernel-params=" + CPU_WORK_GROUPS]),
        ("GPU shape, tile 32, V = 80 (padded to 128)", ("random", 80, 320, 7),
         ["--tile=32", "--kernel-params=" + GPU_SHAPE]),
        ("GPU shape, tile 64, V = 128 in 2 bands", ("zeros", 128, 512, 8),
         ["--tile=64", "--max-buffer-bytes=32768", "--kernel-params=" + GPU_SHAPE]),
        ("fallbacks, tile 64, V = 128", ("random", 128, 512, 12),
         ["--tile=64", "--kernel-params=" + FALLBACKS]),
    ],
    "gpu-shape": [
        ("GPU shape, tile 128, V = 128 (no padding)", ("random", 128, 512, 9),
         ["--tile=128", "--kernel-params=" + GPU_SHAPE]),
        ("GPU shape, tile 128, V = 80 (padded to 128)", ("dups", 80, 320, 10),
         ["--tile=128", "--kernel-params=" + GPU_SHAPE]),
        ("AMD shape, tile 128, V = 100 (padded to 128)", ("random", 100, 400, 11),
         ["--tile=128", "--kernel-params=" + AMD_SHAPE]),
        ("the table's row for Oclgrind's GPU, V = 20", ("random", 20, 60, 13), []),
    ],
    # Two pivot-row blocks per round at tile 128 (phase 2's slabs; its race, docs/reliability.md)
    # and the next round's panels written from two bands.
    "tile-128-bands": [
        ("GPU shape without prefetch, V = 256 in 2 bands", ("random", 256, 1024, 14),
         ["--tile=128", "--max-buffer-bytes=131072",
          "--kernel-params=" + GPU_SHAPE_NO_PREFETCH]),
        ("AMD shape, V = 200 (padded to 256) in 2 bands", ("random", 200, 800, 15),
         ["--tile=128", "--max-buffer-bytes=131072", "--kernel-params=" + AMD_SHAPE]),
    ],
    # Streaming from host memory (src/opencl/stream.c): a --device-memory below the matrix (128 x
    # 128 and its panels need 80 KiB): fw_stream two tiles deep (K = 16), fw_transpose over K
    # columns, blocks of 8 rows; scalar, and int4 with prefetch.
    "stream": [
        ("streamed, tile 8, K = 16, scalar", ("random", 120, 500, 16),
         ["--tile=8", "--device-memory=70K", "--kernel-params=CPU_KERNELS=0,GROUP_ROWS=2,"
          "GROUP_COLS=16,THREAD_ROWS=4,THREAD_COLS=4,VECTOR=1,PREFETCH=0"]),
        ("streamed, tile 8, K = 16, int4, prefetch", ("zeros", 100, 400, 17),
         ["--tile=8", "--device-memory=70K", "--kernel-params=CPU_KERNELS=0,GROUP_ROWS=2,"
          "GROUP_COLS=8,THREAD_ROWS=4,THREAD_COLS=8,VECTOR=4,PREFETCH=1,K_CHUNK=8"]),
    ],
}

def pytest_generate_tests(metafunc):
    """test_group once per run of --opt=group's list."""
    if "run" in metafunc.fixturenames:
        runs = GROUPS.get(settings(metafunc.config).get("group"), [])
        metafunc.parametrize("run", runs, ids=[r[0] for r in runs])


@pytest.fixture(scope="module")
def oclgrind():
    found = shutil.which("oclgrind")
    if not found:
        skip("oclgrind not found (Debian: apt-get install oclgrind)")
    return found


def clean_env():
    """The environment without the variables that steer apsp's device and kernels."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("APSP_DEVICE", "APSP_KERNEL_DIR", "APSP_MAX_BUFFER_BYTES",
                        "APSP_KERNEL_PARAMS", "APSP_TILE")}
    # In an AddressSanitizer build (CI's build-asan) the `oclgrind` command preloads its runtime
    # ahead of ASan's, which ASan refuses at start-up unless told that the order is wanted.
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "verify_asan_link_order=0"
    return env


def under_oclgrind(oclgrind, options, command, log, timeout=600):
    """Runs command under Oclgrind with its messages in log; returns (process, messages)."""
    if os.path.exists(log):
        os.unlink(log)
    p = subprocess.run([oclgrind] + options + ["--log", log] + command, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, env=clean_env(), timeout=timeout)
    messages = open(log, errors="replace").read() if os.path.exists(log) else ""
    return p, messages


def test_group(oclgrind, apsp_path, exe, opt, work, run):
    group = opt["group"]
    what, (shape, v, e, seed), args = run
    graph = os.path.join(work, "g-%s-%d-%d.in" % (shape, v, seed))
    expected = graph[:-3] + ".ref"
    output = graph[:-3] + ".out"
    subprocess.run([exe["gen-graph"], shape, str(v), str(e), str(seed), graph], check=True,
                   capture_output=True)
    subprocess.run([exe["oracle"], graph, expected], check=True, capture_output=True)
    command = [apsp_path, "--backend=opencl", "-v"] + args + [graph, output]
    p, messages = under_oclgrind(oclgrind, ["--data-races", "--check-api"], command,
                                 os.path.join(work, "oclgrind.log"))
    line = "%-46s %s" % (what, " ".join(args))
    m = re.search(r"on (.*); V = \d+ padded to (\d+); round depth (\d+)", p.stderr)
    assert p.returncode == 0, "%s: apsp exits %d:\n%s" % (line, p.returncode, p.stderr)
    assert m and m.group(1) == "Oclgrind Simulator", (
        "%s: not on Oclgrind's device:\n%s" % (line, p.stderr))
    assert not messages.strip(), "%s: Oclgrind reports:\n%s" % (line, messages[:6000])
    assert group != "stream" or "streamed from host memory" in p.stderr, (
        "%s: did not stream:\n%s" % (line, p.stderr))
    assert open(output, "rb").read() == open(expected, "rb").read(), (
        "%s: the output differs from apsp-oracle's" % line)
    print("ok   %s (n = %s, tile %s)" % (line, m.group(2), m.group(3)), flush=True)


def test_program(oclgrind, exe, opt, work):
    command = [exe["program"]] + shlex.split(opt.get("args", ""))
    p, messages = under_oclgrind(oclgrind, ["--data-races", "--check-api"], command,
                                 os.path.join(work, "oclgrind.log"))
    line = " ".join(os.path.basename(c) for c in command)
    assert p.returncode == 0, "%s: exits %d:\n%s%s" % (line, p.returncode, p.stdout, p.stderr)
    assert not messages.strip(), "%s: Oclgrind reports:\n%s" % (line, messages[:6000])
    print("ok   %s: %s" % (line, p.stdout.strip()), flush=True)


def test_uninit_demo(oclgrind, exe, work, check):
    """The reproducer's cases with and without --uninitialized: what Oclgrind says."""
    program = exe["program"]
    log = os.path.join(work, "oclgrind.log")
    for case in ("whole", "rect", "offset", "freeze"):
        for options in ([], ["--uninitialized"]):
            p, messages = under_oclgrind(oclgrind, options, [program, case], log, timeout=120)
            reports = messages.count("Kernel:")
            fatal = messages.count("OCLGRIND FATAL ERROR")
            label = "%-6s %-17s exit %d, %d report(s), %d fatal: %s" % (
                case, " ".join(options) or "(no options)", p.returncode, reports, fatal,
                p.stdout.strip())
            print(label, flush=True)
            if p.returncode not in (0, 1):
                check.fail("%s: %s" % (label, p.stderr.strip()))
            elif not options and (p.returncode != 0 or messages.strip()):
                check.fail("without --uninitialized the %s case must be right and silent" % case)
            elif options and case == "whole" and (p.returncode != 0 or messages.strip()):
                check.fail("the control case (one whole-buffer write) must pass --uninitialized")
            elif options and case in ("rect", "offset") and not reports:
                print("       (no report: Oclgrind's partial host-write defect seems fixed)")
            elif options and case == "freeze" and p.returncode == 0:
                print("       (right: this Oclgrind's --uninitialized knows `freeze`)")

