#!/usr/bin/env python3
"""apsp-mpi end to end under mpirun (several ranks on few cores: --oversubscribe).

usage: test_mpi.py MPIRUN APSP_MPI APSP GEN_GRAPH TESTCASES_DIR PART
  PART  grid=P:PRxPC[:plain][:opencl]       every testcases/*.in against its .out and random
                                            graphs around the block edges against
                                            `apsp --backend=cpu`, byte for byte (PRxPC may
                                            be "auto"; plain: --no-look-ahead; opencl:
                                            --backend=opencl, a device per rank)
        errors                              a bad input, bad output paths and a wrong grid:
                                            one error line (rank 0's), the exit code apsp
                                            gives, no output file and no temporary file left,
                                            every rank gone (no hang)
        faults                              (-Dfault_injection=true) every allocation of rank 1
                                            made to fail in turn ends the whole run cleanly
        faults-opencl                       (-Dfault_injection=true) every OpenCL call of
                                            rank 1 on --backend=opencl made to fail in turn,
                                            likewise
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

TIMEOUT = 120  # a rank left waiting in a collective shows up as this
# Sizes around the 128-wide blocks and around the grids' cycles (1, 2, 3 blocks per side...).
RANDOM_SIZES = [1, 2, 127, 128, 129, 255, 256, 257, 385, 520]
SHAPES = ["random", "dups", "disconnected", "chain", "zeros"]


LSAN_SUPPRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan.supp")


def sanitizer_env():
    """Under AddressSanitizer (CI's second build): Open MPI's own leaks are suppressed, with full
    stacks and its components kept loaded so that they can be matched (lsan.supp)."""
    def joined(name, extra):
        return ":".join(filter(None, [os.environ.get(name, ""), extra]))
    return {
        "OMPI_MCA_mca_base_component_disable_dlclose": "1",
        "LSAN_OPTIONS": joined("LSAN_OPTIONS", f"suppressions={LSAN_SUPPRESSIONS}:print_suppressions=0"),
        "ASAN_OPTIONS": joined("ASAN_OPTIONS", "fast_unwind_on_malloc=0"),
    }


def mpirun(tool, np, args, env_extra=None):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(sanitizer_env())
    env.update(env_extra or {})
    cmd = [tool.mpirun, "-q", "--oversubscribe", "-np", str(np), tool.apsp_mpi] + args
    try:
        return subprocess.run(cmd, capture_output=True, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL (hang?): {' '.join(cmd)} ran past {TIMEOUT} s")


class Tools:
    def __init__(self, argv):
        self.mpirun, self.apsp_mpi, self.apsp, self.gen_graph, self.testcases = argv[:5]


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def check_grid(tool, spec, work):
    np_text, grid, *flags = spec.split(":")
    np = int(np_text)
    grid_args = [] if grid == "auto" else ["--grid=" + grid]
    grid_args += ["--no-look-ahead"] if "plain" in flags else []
    grid_args += ["--backend=opencl"] if "opencl" in flags else []
    failures = 0
    cases = [(p, p[:-3] + ".out") for p in sorted(glob.glob(os.path.join(tool.testcases, "*.in")))]
    for seed, v in enumerate(RANDOM_SIZES):
        shape = SHAPES[seed % len(SHAPES)]
        graph = os.path.join(work, f"{shape}-{v}.in")
        expected = graph[:-3] + ".expected"
        subprocess.run([tool.gen_graph, shape, str(v), str(v * 6), str(seed + 1), graph], check=True)
        subprocess.run([tool.apsp, "--backend=cpu", "-q", graph, expected], check=True)
        cases.append((graph, expected))
    out = os.path.join(work, "out.bin")
    for graph, expected in cases:
        if os.path.exists(out):
            os.unlink(out)
        r = mpirun(tool, np, grid_args + ["-v", graph, out])
        name = os.path.basename(graph)
        # The engine each rank ran is the one asked for (-v: "rank R (pr, pc): ENGINE").
        engines = re.findall(rb"apsp-mpi: rank \d+ \(\d+, \d+\): (\w+)", r.stderr)
        want = b"OpenCL" if "opencl" in flags else b"1"  # the pthread engine: "N POSIX threads"
        if r.returncode == 0 and (len(engines) != np or any(
                not e.startswith(want) if want == b"OpenCL" else e.startswith(b"OpenCL")
                for e in engines)):
            print(f"FAIL {name} on {spec}: the ranks ran {engines!r}")
            failures += 1
            continue
        if r.returncode != 0:
            print(f"FAIL {name} on {spec}: exit {r.returncode}: {r.stderr.decode()}")
            failures += 1
        elif not same_bytes(out, expected):
            print(f"FAIL {name} on {spec}: the output differs from {expected}")
            failures += 1
        else:
            print(f"ok {name} on {spec}")
    return failures


def check_profile(tool, spec, work):
    """APSP_PROFILE=1 on GPU ranks: each rank logs one profile line with the time its phase 3
    took on the device, and the answer stays the same."""
    np_text, grid, *flags = spec.split(":")
    args = ([] if grid == "auto" else ["--grid=" + grid]) + ["--backend=opencl"]
    graph = os.path.join(work, "profile.in")
    expected = graph[:-3] + ".expected"
    out = os.path.join(work, "profile.bin")
    subprocess.run([tool.gen_graph, "random", "300", "1800", "7", graph], check=True)
    subprocess.run([tool.apsp, "--backend=cpu", "-q", graph, expected], check=True)
    r = mpirun(tool, int(np_text), args + [graph, out], {"APSP_PROFILE": "1"})
    lines = re.findall(rb"apsp-mpi: rank \d+: profile, .*phase 3 ([0-9.]+)", r.stderr)
    ok = (r.returncode == 0 and len(lines) == int(np_text) and all(float(x) > 0 for x in lines)
          and same_bytes(out, expected))
    print(("ok" if ok else "FAIL") + f" APSP_PROFILE=1 on {spec}: {len(lines)} profile line(s)")
    if not ok:
        print(r.stderr.decode(errors="replace"))
    return 0 if ok else 1


def leftovers(directory):
    return [n for n in os.listdir(directory) if ".apsp-mpi-" in n]


def expect_failure(tool, np, args, code, out, why, env_extra=None):
    """One error line from rank 0, apsp's exit code, no output, no temporary file."""
    r = mpirun(tool, np, args, env_extra)
    lines = r.stderr.decode(errors="replace").splitlines()
    lines = [l for l in lines if not l.startswith("apsp-fault:")]
    problems = []
    if r.returncode == 0 or (code is not None and r.returncode != code):
        problems.append(f"exit {r.returncode}, expected {code or 'non-zero'}")
    if len(lines) != 1 or not lines[0].startswith("apsp-mpi: "):
        problems.append(f"expected one 'apsp-mpi:' line, got {lines!r}")
    if out and os.path.exists(out):
        problems.append(f"{out} exists")
    directory = os.path.dirname(out) if out and os.path.isdir(os.path.dirname(out)) else None
    if directory and leftovers(directory):
        problems.append(f"temporary files left: {leftovers(directory)}")
    print(("FAIL " if problems else "ok ") + why + ("" if not problems else ": " + "; ".join(problems)))
    if lines:
        print("   ", lines[0])
    return 1 if problems else 0


def check_errors(tool, work):
    good = os.path.join(tool.testcases, "v129-dense.in")
    with open(good, "rb") as f:
        data = f.read()
    truncated = os.path.join(work, "truncated.in")
    with open(truncated, "wb") as f:
        f.write(data[:len(data) - 5])
    bad_vertex = os.path.join(work, "bad-vertex.in")
    with open(bad_vertex, "wb") as f:
        f.write(data[:8] + (5000).to_bytes(4, "little") + data[12:])
    out = os.path.join(work, "out.bin")
    failures = 0
    for np in (2, 4):
        failures += expect_failure(tool, np, [truncated, out], 3, out, f"truncated input, {np} ranks")
        failures += expect_failure(tool, np, [bad_vertex, out], 3, out, f"bad vertex, {np} ranks")
        failures += expect_failure(tool, np, [os.path.join(work, "missing.in"), out], 3, out,
                                   f"missing input, {np} ranks")
        missing_dir = os.path.join(work, "no-such-dir", "out.bin")
        failures += expect_failure(tool, np, [good, missing_dir], 4, missing_dir,
                                   f"output in a missing directory, {np} ranks")
        failures += expect_failure(tool, np, [good, work], 4, None,
                                   f"output is a directory, {np} ranks")
    failures += expect_failure(tool, 3, ["--grid=2x2", good, out], 2, out, "a grid of 4 for 3 ranks")
    failures += expect_failure(tool, 2, ["--bogus", good, out], 2, out, "an unknown option")
    # A failed run keeps an existing OUTPUT as it was.
    with open(out, "wb") as f:
        f.write(b"keep me")
    r = mpirun(tool, 2, [truncated, out])
    with open(out, "rb") as f:
        kept = f.read() == b"keep me"
    ok = r.returncode == 3 and kept and not leftovers(work)
    print(("ok" if ok else "FAIL") + " a failed run leaves an existing output alone")
    failures += 0 if ok else 1
    os.unlink(out)
    return failures


def check_faults(tool, work, kind="alloc", args=()):
    graph = os.path.join(tool.testcases, "v333-random.in")
    expected = graph[:-3] + ".out"
    out = os.path.join(work, "out.bin")
    args = list(args)
    r = mpirun(tool, 2, args + [graph, out], {"APSP_FAULT_COUNT": "1"})
    counts = [int(m) for m in re.findall(rb"apsp-fault: .*\b" + kind.encode() + rb"=(\d+)", r.stderr)]
    if r.returncode != 0 or not counts:
        sys.exit(f"the clean run failed or this build has no fault injection: {r.stderr.decode()}")
    os.unlink(out)
    failures = 0
    # Rank 0 reads, writes and sends; rank 1 only receives and computes. (The walk goes to the
    # larger count on both; past a rank's own count a run simply succeeds.)
    for rank in (0, 1):
        for n in range(1, max(counts) + 1):
            env = {"APSP_FAULT": f"{kind}:{n}", "APSP_FAULT_RANK": str(rank)}
            why = f"{kind}:{n} on rank {rank}"
            r = mpirun(tool, 2, args + [graph, out], env)
            if r.returncode == 0:  # a survivable fault (a thread not started), or none
                ok = same_bytes(out, expected)
                print(("ok" if ok else "FAIL") + f" {why}: the run went on, with the right answer")
                failures += 0 if ok else 1
                os.unlink(out)
                continue
            failures += expect_failure(tool, 2, args + [graph, out], None, out, why, env)
    return failures


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    tool = Tools(sys.argv[1:6])
    part = sys.argv[6]
    with tempfile.TemporaryDirectory(prefix="apsp-mpi-test-") as work:
        if part.startswith("grid="):
            failures = check_grid(tool, part[len("grid="):], work)
            if "opencl" in part:
                failures += check_profile(tool, part[len("grid="):], work)
        elif part == "errors":
            failures = check_errors(tool, work)
        elif part == "faults":
            failures = check_faults(tool, work)
        elif part == "faults-opencl":
            failures = check_faults(tool, work, "cl", ["--backend=opencl"])
        else:
            sys.exit(f"unknown part {part}")
    if failures:
        sys.exit(f"{failures} failure(s)")


if __name__ == "__main__":
    main()
