"""The OpenCL backend under the process's resource limits (ulimit -v, -n), which PoCL meets by
crashing (SIGSEGV, SIGABRT in pocl_create_migration_commands) or by vanishing from the device
list without a word.

    pytest_main.py test_host_limits.py::test_TEST --apsp=APSP --testcases=TESTCASES_DIR

address-space: on the OpenCL CPU device (whose buffers are host memory), the least address-space
  limit under which a tiny graph solves is found; a graph whose matrix alone is 145 MB more is
  then refused under that limit plus 32 MiB: exit 5 (out of memory, as the pthread backend's),
  one line naming the limit, no output file; also with an empty kernel cache at limits from
  that one up (compiled under the limit, no binary asked of PoCL where it would crash).
no-room-to-list: under a 300 MiB address-space limit --backend=opencl finds no device and says
  why (the limit), where it said nothing.
few-files: under an open-file limit of 8 --backend=opencl says that OpenCL was not tried for
  too few file descriptors, where it said nothing (and PoCL's compiler aborted with 6-12); under
  5, the input cannot be opened, which it says.

Skips as test_opencl.py's tests do without an OpenCL CPU device (unless
APSP_TEST_REQUIRE_DEVICE=1), and the address-space tests skip in a sanitizer build, which cannot
run under the limit.
"""
import os
import resource
import struct
import subprocess
import tempfile

import pytest
from harness import skip
from test_opencl import clean_env, ctx  # noqa: F401 (ctx: test_opencl.py's fixture)

MIB = 1 << 20


def limited(ctx, args, resource_id, limit, **env):
    """apsp with a soft and hard limit on one resource (a subshell's ulimit)."""
    def set_limit():
        resource.setrlimit(resource_id, (limit, limit))

    p = subprocess.run([ctx.apsp] + args, capture_output=True, stdin=subprocess.DEVNULL,
                       env=clean_env(**env), preexec_fn=set_limit, timeout=300)
    p.err = p.stderr.decode(errors="replace")
    return p


def write_hw3(path, vertices, edges):
    with open(path, "wb") as f:
        f.write(struct.pack("<ii", vertices, len(edges)))
        for edge in edges:
            f.write(struct.pack("<iii", *edge))


def need_limited_runs(ctx):
    """A sanitizer build cannot run under an address-space limit at all (its shadow memory): the
    tests that set one are skipped there, as test_options.py's are."""
    if limited(ctx, ["--version"], resource.RLIMIT_AS, 3 << 30).returncode != 0:
        pytest.skip("this build cannot run under RLIMIT_AS (a sanitizer build)")


def need_cpu_device(ctx):
    need_limited_runs(ctx)
    if any(d["type"] == "cpu" for d in ctx.opencl_devices()):
        return True
    skip("no OpenCL CPU device")


def one_line(p):
    return p.err.count("\n") == 1


def test_address_space(ctx):
    if not need_cpu_device(ctx):
        return
    tiny, large = os.path.join(ctx.work, "tiny.in"), os.path.join(ctx.work, "large.in")
    write_hw3(tiny, 64, [(0, 1, 5), (1, 2, 7)])
    write_hw3(large, 6000, [(0, 5999, 3)])  # 6016 x 6016 int32: 145 MB on the device
    out = os.path.join(ctx.work, "out.bin")
    args = ["--backend=opencl", "-d", "cpu", "-q"]

    def solves(limit):
        return limited(ctx, args + [tiny, out], resource.RLIMIT_AS, limit).returncode == 0

    # The least limit for the tiny graph, to 16 MiB: doubling, then halving the interval.
    low, high = 128 * MIB, 256 * MIB
    while not solves(high):
        low, high = high, 2 * high
        if high > 256 << 30:
            ctx.check(False, "no address-space limit up to 256 GiB lets a tiny graph solve")
            return
    while high - low > 16 * MIB:
        middle = (low + high) // 2
        low, high = (low, middle) if solves(middle) else (middle, high)
    if os.path.exists(out):
        os.unlink(out)
    p = limited(ctx, args + [large, out], resource.RLIMIT_AS, high + 32 * MIB)
    ctx.check(p.returncode == 5 and one_line(p) and "address-space limit (ulimit -v)" in p.err and
              "host memory" in p.err, "V = 6000 under %d MiB (a tiny graph's %d + 32): exit %d: %s"
              % ((high >> 20) + 32, high >> 20, p.returncode, p.err.strip()))
    ctx.check(not os.path.exists(out), "V = 6000 under the limit: an output was written")
    refused_cold(ctx, args + [large, out], high)


def refused_cold(ctx, args, least):
    """The same refusal with nothing in the kernel cache, as when a concurrent run's "in use"
    marker makes this one compile: the program is compiled under the limit and its binary is
    not asked for (PoCL's unchecked 256 MiB malloc: before, a SIGSEGV at address 0 from about
    560 to 645 MiB on PoCL 3.1, 2 cores). Several limits, as that window moves with the machine."""
    for extra in (0, 16, 32, 48, 64, 96, 128):
        limit = least + extra * MIB
        cache = tempfile.mkdtemp(prefix="cold-cache-", dir=ctx.work)
        p = limited(ctx, args, resource.RLIMIT_AS, limit, APSP_KERNEL_CACHE=cache)
        ctx.check(p.returncode == 5 and one_line(p) and "address-space limit (ulimit -v)" in p.err,
                  "V = 6000 under %d MiB, an empty kernel cache: exit %d: %s"
                  % (limit >> 20, p.returncode, p.err.strip()))


def test_no_room_to_list(ctx):
    if not need_cpu_device(ctx):
        return
    p = limited(ctx, ["--backend=opencl", os.path.join(ctx.cases, "example.in"),
                      os.path.join(ctx.work, "out.bin")], resource.RLIMIT_AS, 300 * MIB)
    ctx.check(p.returncode == 6 and one_line(p) and "address-space limit (ulimit -v)" in p.err,
              "--backend=opencl under 300 MiB: exit %d: %s" % (p.returncode, p.err.strip()))


def test_few_files(ctx):
    args = ["--backend=opencl", os.path.join(ctx.cases, "example.in"),
            os.path.join(ctx.work, "out.bin")]
    p = limited(ctx, args, resource.RLIMIT_NOFILE, 8)
    ctx.check(p.returncode == 6 and one_line(p) and "too few file descriptors" in p.err and
              "ulimit -n" in p.err, "--backend=opencl under 8 files: exit %d: %s"
              % (p.returncode, p.err.strip()))
    # Under 5, the output's temporary file and its folder take the last two: the input, read
    # before the devices are opened, cannot be, and says so.
    p = limited(ctx, args, resource.RLIMIT_NOFILE, 5)
    ctx.check(p.returncode == 3 and one_line(p) and "Too many open files" in p.err,
              "--backend=opencl under 5 files: exit %d: %s" % (p.returncode, p.err.strip()))

