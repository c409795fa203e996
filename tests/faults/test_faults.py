#!/usr/bin/env python3
"""Fault injection: every allocation and OpenCL call a run reaches is made to fail in turn.

Needs a build configured with -Dfault_injection=true (see src/fault.h). For each kind and each
N from 1 to the number of such calls a clean run makes, `APSP_FAULT=KIND:N apsp ...` must either
end in one error line on stderr (after the build log, for a kernel build), a non-zero exit, no
output file (an existing one kept byte for byte) and no temporary file; or, where the fault is
survivable (a thread that could not be started), succeed with the right answer. Under
AddressSanitizer a leak fails the run.

usage: test_faults.py APSP TESTCASES_DIR [--backend=cpu|opencl] [--graph=NAME] [APSP OPTIONS]
(--graph: testcases/NAME.in instead of v333-random.in)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


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
    r = run(apsp, args, {"APSP_FAULT_COUNT": "1"})
    m = re.search(rb"apsp-fault: alloc=(\d+) cl=(\d+) io=(\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"the clean run failed or this build has no fault injection:\n{r.stderr.decode()}")
    return {"alloc": int(m.group(1)), "cl": int(m.group(2)), "io": int(m.group(3))}


def check_one(apsp, args, out, expected, kind, n, failures):
    sentinel = b"an existing output file that a failed run must not touch\n"
    with open(out, "wb") as f:
        f.write(sentinel)
    r = run(apsp, args, {"APSP_FAULT": f"{kind}:{n}"})
    lines = r.stderr.decode(errors="replace").splitlines()
    if lines and lines[0] == IN_PLACE_WARNING["line"]:
        lines = lines[1:]
    leftovers = [p for p in os.listdir(os.path.dirname(out)) if ".apsp-" in p]
    where = f"{kind}:{n}"
    if leftovers:
        failures.append(f"{where}: temporary files left behind: {leftovers}")
    with open(out, "rb") as f:
        content = f.read()
    if r.returncode == 0:
        if content != expected:
            failures.append(f"{where}: exit 0 but the output is wrong")
        return "survived"
    # A kernel build failure prints the build log before its one error line (docs/usage.md); every
    # other failure is that line alone.
    build_log = len(lines) > 1 and "clBuildProgram" in lines[-1]
    if not lines or not lines[-1].startswith("apsp: ") or (len(lines) != 1 and not build_log):
        failures.append(f"{where}: exit {r.returncode}, expected one 'apsp: ' line, got:\n"
                        + "\n".join(lines[:20]))
    if content != sentinel:
        failures.append(f"{where}: the existing output file was changed")
    return lines[-1] if lines else ""


def walk(apsp, args, out, expected, counts, failures, kinds=("alloc", "cl", "io"), before=None):
    for kind in kinds:
        for n in range(1, counts[kind] + 1):
            if before:
                before()
            outcome = check_one(apsp, args, out, expected, kind, n, failures)
            print(f"{kind}:{n}: {outcome}")
            cache = KERNEL_CACHE["APSP_KERNEL_CACHE"]
            if os.path.isdir(cache):
                partial = [f for f in os.listdir(cache) if not f.endswith(".clbin")]
                if partial:
                    failures.append(f"{kind}:{n}: temporary cache files left: {partial}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    apsp, cases = sys.argv[1], sys.argv[2]
    extra = [a for a in sys.argv[3:] if not a.startswith("--graph=")]
    named = [a[len("--graph="):] for a in sys.argv[3:] if a.startswith("--graph=")]
    graph = os.path.join(cases, (named[-1] if named else "v333-random") + ".in")
    if not os.path.exists(graph):
        graph = sorted(os.path.join(cases, f) for f in os.listdir(cases) if f.endswith(".in"))[-1]
    with open(graph[:-3] + ".out", "rb") as f:
        expected = f.read()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.out")
        args = extra + ["--threads=2", graph, out]
        counts = count_calls(apsp, args)
        if "--backend=opencl" in extra and counts["cl"] == 0:
            print("no OpenCL call was made: no device?")
            sys.exit(1 if os.environ.get("APSP_TEST_REQUIRE_DEVICE") == "1" else SKIP)
        walk(apsp, args, out, expected, counts, failures)
        if "--backend=opencl" not in extra:
            # A hard-linked OUTPUT is written in place (through a temporary copy): every fault
            # must keep its old bytes too, under both names (one inode).
            os.link(out, out + ".link")
            linked = count_calls(apsp, args)
            IN_PLACE_WARNING["line"] = ("apsp: %s: written in place, not replaced: it has 2 hard "
                                        "links, which all keep the result" % out)
            walk(apsp, args, out, expected, linked, failures)
            os.unlink(out + ".link")
            counts = {k: counts[k] + linked[k] for k in counts}
        if "--backend=opencl" in extra:
            cache = os.path.join(tmp, "cache")
            KERNEL_CACHE["APSP_KERNEL_CACHE"] = cache
            shutil.rmtree(cache, ignore_errors=True)
            cold = count_calls(apsp, args)  # leaves the cache warm
            walk(apsp, args, out, expected, count_calls(apsp, args), failures)
            walk(apsp, args, out, expected, cold, failures, ("io",), lambda: shutil.rmtree(cache, ignore_errors=True))
            counts = {k: counts[k] + cold[k] for k in counts}
    print(f"{sum(counts.values())} faults injected ({counts}), {len(failures)} failures")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
