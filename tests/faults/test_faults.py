"""Fault injection: every place that allocates or calls OpenCL in a run is made to fail in turn.

Needs a build configured with -Dfault_injection=true (see src/base/fault.h). For each site a
clean run reaches, at its first three calls and its last (tests/support/fault_walk.py; every call
with APSP_TEST_FAULT_WALK=every), `APSP_FAULT=KIND@SITE#K apsp ...` must either end in one error
line on stderr (after the build log, for a kernel build), a non-zero exit, no
output file (an existing one kept byte for byte) and no temporary file; or, where the fault is
survivable (a thread that could not be started), succeed with the right answer. Under
AddressSanitizer a leak fails the run.

usage: pytest_main.py test_faults.py --apsp=APSP [--testcases=DIR] [--opt=graph=NAME]
           [--apsp-arg=--backend=cpu|opencl] [--apsp-arg=APSP_OPTION]...
(--opt=graph: testcases/NAME.in instead of v333-random.in)
"""
import os
import shutil
import subprocess

import pytest
from fault_walk import totals, walk_specs
from harness import skip

# The kernel cache (--kernel-cache): "off" for the walk over allocations and OpenCL calls, so
# that the build from source is walked; then the cache's own file operations ("io") and the
# calls that load a cached program, from a cold cache and from a warm one.
KERNEL_CACHE = {"APSP_KERNEL_CACHE": "off"}
# The warning line that a hard-linked OUTPUT adds before any error (it is written in place).
IN_PLACE_WARNING = {"line": None}


def run(apsp, args, env_extra):
    env = dict(os.environ, **KERNEL_CACHE)
    env.update(env_extra)
    return subprocess.run([apsp] + args, capture_output=True, env=env, timeout=120)


def count_calls(apsp, args):
    """The clean run's listing of its fault sites (fault_walk.py)."""
    r = run(apsp, args, {"APSP_FAULT_COUNT": "1"})
    if r.returncode != 0 or totals(r.stderr) is None:
        pytest.fail(f"the clean run failed or this build has no fault injection:\n"
                    f"{r.stderr.decode()}", pytrace=False)
    return r.stderr


def check_one(apsp, args, out, expected, where, check):
    sentinel = b"an existing output file that a failed run must not touch\n"
    with open(out, "wb") as f:
        f.write(sentinel)
    r = run(apsp, args, {"APSP_FAULT": where})
    lines = r.stderr.decode(errors="replace").splitlines()
    if lines and lines[0] == IN_PLACE_WARNING["line"]:
        lines = lines[1:]
    leftovers = [p for p in os.listdir(os.path.dirname(out)) if ".apsp-" in p]
    if leftovers:
        check.fail(f"{where}: temporary files left behind: {leftovers}")
    with open(out, "rb") as f:
        content = f.read()
    if r.returncode == 0:
        if content != expected:
            check.fail(f"{where}: exit 0 but the output is wrong")
        return "survived"
    # A kernel build failure prints the build log before its one error line (docs/usage.md); every
    # other failure is that line alone.
    build_log = len(lines) > 1 and "clBuildProgram" in lines[-1]
    if not lines or not lines[-1].startswith("apsp: ") or (len(lines) != 1 and not build_log):
        check.fail(f"{where}: exit {r.returncode}, expected one 'apsp: ' line, got:\n"
                        + "\n".join(lines[:20]))
    if content != sentinel:
        check.fail(f"{where}: the existing output file was changed")
    return lines[-1] if lines else ""


def walk(apsp, args, out, expected, listing, check, kinds=("alloc", "cl", "io"), before=None,
         besides=None):
    specs = walk_specs(listing, kinds, besides)
    for where in specs:
        if before:
            before()
        outcome = check_one(apsp, args, out, expected, where, check)
        print(f"{where}: {outcome}")
        cache = KERNEL_CACHE["APSP_KERNEL_CACHE"]
        if os.path.isdir(cache):
            partial = [f for f in os.listdir(cache) if not f.endswith(".clbin")]
            if partial:
                check.fail(f"{where}: temporary cache files left: {partial}")
    return len(specs)


@pytest.fixture
def setup(apsp, testcases, opt, work):
    """(apsp, its arguments, the output's path, the right output), KERNEL_CACHE "off"."""
    graph = os.path.join(testcases, opt.get("graph", "v333-random") + ".in")
    if not os.path.exists(graph):
        graph = sorted(os.path.join(testcases, f) for f in os.listdir(testcases)
                       if f.endswith(".in"))[-1]
    with open(graph[:-3] + ".out", "rb") as f:
        expected = f.read()
    out = os.path.join(work, "result.out")
    KERNEL_CACHE["APSP_KERNEL_CACHE"] = "off"
    IN_PLACE_WARNING["line"] = None
    return apsp.exe, apsp.extra + ["--threads=2", graph, out], out, expected


def on_opencl(apsp):
    return "--backend=opencl" in apsp.extra


def test_every_fault(apsp, setup, check):
    exe, args, out, expected = setup
    listing = count_calls(exe, args)
    if on_opencl(apsp) and totals(listing)["cl"] == 0:
        skip("no OpenCL call was made: no device?")
    walked = walk(exe, args, out, expected, listing, check)
    print(f"{walked} faults injected, of {totals(listing)} calls")


def test_hard_linked(apsp, setup, check):
    """A hard-linked OUTPUT is written in place (through a temporary copy): every fault must keep
    its old bytes too, under both names (one inode)."""
    if on_opencl(apsp):
        pytest.skip("walked on the host backend (the copy is the host's)")
    exe, args, out, expected = setup
    with open(out, "wb"):
        pass
    os.link(out, out + ".link")
    linked = count_calls(exe, args)
    IN_PLACE_WARNING["line"] = ("apsp: %s: written in place, not replaced: it has 2 hard "
                                "links, which all keep the result" % out)
    walked = walk(exe, args, out, expected, linked, check)
    print(f"{walked} faults injected, of {totals(linked)} calls")


def test_kernel_cache(apsp, setup, check, work):
    """The cache's file operations and the calls that load a cached program, warm and cold."""
    if not on_opencl(apsp):
        pytest.skip("the kernel cache is OpenCL's")
    exe, args, out, expected = setup
    cache = os.path.join(work, "cache")
    KERNEL_CACHE["APSP_KERNEL_CACHE"] = cache
    cold = count_calls(exe, args)  # leaves the cache warm
    if totals(cold)["cl"] == 0:
        skip("no OpenCL call was made: no device?")
    # From a warm cache, the faults that the run without a cache (test_every_fault's) does not
    # take: the load of the cached program and what follows it at other counts.
    KERNEL_CACHE["APSP_KERNEL_CACHE"] = "off"
    uncached = count_calls(exe, args)
    KERNEL_CACHE["APSP_KERNEL_CACHE"] = cache
    warm = walk(exe, args, out, expected, count_calls(exe, args), check, besides=uncached)
    walked = walk(exe, args, out, expected, cold, check, ("io",),
                  lambda: shutil.rmtree(cache, ignore_errors=True))
    print(f"{warm} faults injected from a warm cache, {walked} from a cold one")
