"""The output prepared beside the rounds (issue 37.1, src/output/output_map.c) on an OpenCL
device: PoCL's CPU device with APSP_OVERLAP=on, which takes the path a GPU takes by default.

    pytest_main.py test_overlap.py --apsp=APSP --testcases=TESTCASES_DIR

- hw3, .npy and text outputs, on /dev/shm (tmpfs) and in the build's temporary directory, are
  byte for byte the oracle's hw3 (testcases/*.out) and the pthread backend's .npy and text;
- --stats-json has overlapped_s: above 0 with APSP_OVERLAP=on, 0 with off (and -v says it);
  also for int64 and fractional float32, whose matrix is made on the host before the solve, and
  for a streamed solve (--device-memory below the matrix);
- two devices (POCL_DEVICES="pthread pthread", -d cpus) hand their rows on at once: every
  format byte for byte, a DAG with negative weights the pthread backend's, and a negative cycle
  in the second device's rows exit 7 with the old OUTPUT kept;
- in a build with -Dfault_injection=true: the preparation's own failure (APSP_FAULT=io:1, the
  first file operation a run survives with the kernel cache off) and its thread's (the last
  allocation fault that the run survives) leave a right output; a failing device call after the
  rounds (the download's) and a run killed by SIGTERM or whose temporary file is truncated once
  the mapping is populated (APSP_FAULT_PAUSE=prepared) keep the old OUTPUT byte for byte, leave
  no temporary file, and end in one line (exit 4 for the truncation).

Skips without an OpenCL CPU device, unless APSP_TEST_REQUIRE_DEVICE=1.
"""
import io
import json
import os
import signal
import subprocess
import tempfile

import pytest
from files import read, temp_fd
from harness import skip

DEVICE = ["--backend=opencl", "-d", "cpu", "--kernel-cache=off"]
CASES = ["v333-random", "v500-disconnected", "v130-chain", "v1-empty"]
OLD = b"the old output, which a failed run must keep\n"


@pytest.fixture(scope="module")
def apsp(apsp_path, testcases):
    """apsp's path; the file skipped without an OpenCL CPU device."""
    probe = run(apsp_path, DEVICE + [os.path.join(testcases, "example.in"), "/dev/null"])
    if probe.returncode != 0:
        skip("no OpenCL CPU device: " + probe.stderr.decode(errors="replace").strip())
    return apsp_path


@pytest.fixture
def shm():
    """A directory on /dev/shm (tmpfs), None where there is none."""
    if not os.path.isdir("/dev/shm"):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="apsp-test-overlap-", dir="/dev/shm") as d:
        yield d


@pytest.fixture
def shm_or_work(shm, work):
    return shm or work


@pytest.fixture(params=["work", "shm"])
def directory(request, work, shm):
    """The outputs' folder: the build's temporary directory, and /dev/shm (tmpfs)."""
    if request.param == "shm" and shm is None:
        pytest.skip("no /dev/shm")
    return work if request.param == "work" else shm


def env_of(overlap, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("APSP_")}
    env["APSP_OVERLAP"] = overlap
    env.update(extra)
    return env


def run(apsp, args, overlap="on", **extra):
    return subprocess.run([apsp] + args, capture_output=True, env=env_of(overlap, **extra),
                          timeout=300)


def stats_of(r):
    lines = r.stderr.decode(errors="replace").strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {}


def reference(apsp, testcases, case, ext, directory, cache={}):
    """The expected bytes: the oracle's hw3, else the pthread backend's (once per case and
    format); None where the pthread backend failed."""
    if (case, ext) not in cache:
        inp = os.path.join(testcases, case + ".in")
        if ext == "out":
            cache[(case, ext)] = read(os.path.join(testcases, case + ".out"))
        else:
            ref = os.path.join(directory, "%s.cpu.%s" % (case, ext))
            c = run(apsp, ["--backend=cpu", inp, ref], overlap="off")
            cache[(case, ext)] = read(ref) if c.returncode == 0 else None
    return cache[(case, ext)]


def test_outputs(apsp, testcases, directory, check):
    """Every case in every format, overlap on, against the oracle and the pthread backend."""
    for case in CASES:
        inp = os.path.join(testcases, case + ".in")
        for ext in ("out", "npy", "txt"):
            mine = os.path.join(directory, "%s.opencl.%s" % (case, ext))
            r = run(apsp, DEVICE + ["--stats-json", inp, mine])
            want = reference(apsp, testcases, case, ext, directory)
            ok = r.returncode == 0 and want is not None and read(mine) == want
            # text: the whole matrix is written after the solve; nothing is prepared for it.
            overlapped = stats_of(r).get("overlapped_s", -1)
            ok = ok and (overlapped > 0 if ext != "txt" and case != "v1-empty" else overlapped >= 0)
            check.report("%s .%s in %s: the %s output, overlapped_s %s" % (
                      case, ext, directory, "oracle's" if ext == "out" else "pthread backend's",
                      overlapped), ok, r.stderr.decode(errors="replace")[-300:] if not ok else "")


def test_reports(apsp, testcases, work, check):
    inp = os.path.join(testcases, "v333-random.in")
    out = os.path.join(work, "report.out")
    off = stats_of(run(apsp, DEVICE + ["--stats-json", inp, out], overlap="off"))
    check.report("APSP_OVERLAP=off: overlapped_s is 0",
                 off.get("overlapped_s") == 0, str(off)[:200])
    v = run(apsp, DEVICE + ["-v", inp, out])
    check.report("-v says how much output preparation overlapped the compute",
                 v.returncode == 0 and b"s of output preparation)" in v.stderr, v.stderr[-300:])
    bad = run(apsp, DEVICE + [inp, out], overlap="sometimes")
    check.report("APSP_OVERLAP=sometimes is refused in one line", bad.returncode == 2 and
                 bad.stderr.decode().count("\n") == 1 and b"APSP_OVERLAP" in bad.stderr, bad.stderr)


def test_typed(apsp, work, check):
    """Types made into a host matrix before the devices solve it (int64, fractional float32):
    the output prepared beside that solve too (overlapped_s above 0), the bytes the pthread
    backend's (int64) or within float32's rounding of them (the association of float sums
    differs between the kernels)."""
    edges = [(i, (i * 7 + k * 13) % 300, (i * 31 + k) % 40 + 1) for i in range(300) for k in range(4)]
    for dtype, scale in (("int64", 1), ("float32", 0.37)):
        inp = os.path.join(work, "typed-%s.txt" % dtype)
        with open(inp, "w") as f:
            f.writelines("%d %d %s\n" % (u, v, repr(w * scale) if scale != 1 else w)
                         for u, v, w in edges)
        mine, ref = (os.path.join(work, "typed-%s.%s.npy" % (dtype, b)) for b in ("cl", "cpu"))
        r = run(apsp, DEVICE + ["--dtype=" + dtype, "--stats-json", inp, mine])
        c = run(apsp, ["--backend=cpu", "--dtype=" + dtype, inp, ref], overlap="off")
        overlapped = stats_of(r).get("overlapped_s", -1)
        same = r.returncode == 0 and c.returncode == 0 and near(read(mine), read(ref), dtype)
        check.report("--dtype=%s made on the host: overlapped_s %s, the pthread backend's %s" % (
                  dtype, overlapped, "bytes" if dtype == "int64" else "values within 1e-5"),
                  same and overlapped > 0, r.stderr.decode(errors="replace")[-300:])


def test_streamed(apsp, work, check):
    """A streamed solve (--device-memory below the matrix's 9.4 MB): the output prepared beside
    its super-rounds too (overlapped_s above 0), hw3 and .npy the pthread backend's bytes."""
    inp = os.path.join(work, "streamed.txt")
    with open(inp, "w") as f:
        f.writelines("%d %d %d\n" % (i, (i * 37 + k * 101) % 1500, (i * 13 + k) % 90 + 1)
                     for i in range(1500) for k in range(8))
    for ext in ("out", "npy"):
        mine, ref = (os.path.join(work, "streamed.%s.%s" % (b, ext)) for b in ("cl", "cpu"))
        r = run(apsp, DEVICE + ["--device-memory=9000000", "--stats-json", inp, mine])
        c = run(apsp, ["--backend=cpu", inp, ref], overlap="off")
        stats = stats_of(r)
        ok = r.returncode == 0 and c.returncode == 0 and read(mine) == read(ref)
        check.report(".%s streamed (%s): the pthread backend's bytes, overlapped_s %s" % (
                  ext, stats.get("streamed"), stats.get("overlapped_s")),
                  ok and stats.get("streamed") is True and stats.get("overlapped_s", -1) > 0,
                  r.stderr.decode(errors="replace")[-300:])


def near(a, b, dtype):
    if dtype == "int64" or a == b:
        return a == b
    try:
        import numpy as np
    except ImportError:
        return False
    x, y = (np.load(io.BytesIO(v)) for v in (a, b))
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-5, atol=0))


def write_edges(path, edges):
    with open(path, "w") as f:
        f.writelines("%d %d %d\n" % e for e in edges)


def test_devices(apsp, testcases, shm_or_work, check):
    directory = shm_or_work
    """Two PoCL devices, the rows of both handed on at once (drivers/rows.c: store_together)."""
    two = ["--backend=opencl", "-d", "cpus", "--tile=32", "--kernel-cache=off"]
    pocl = {"POCL_DEVICES": "pthread pthread"}
    probe = run(apsp, two + ["-v", os.path.join(testcases, "example.in"), "/dev/null"], **pocl)
    if b"2 devices" not in probe.stderr:
        pytest.skip("two devices at once: PoCL gives no second device here")
    dag = os.path.join(directory, "dag.txt")
    # Arcs i -> j, i < j, some negative: no cycle, distances below zero.
    write_edges(dag, [(i, (i * 7 + k * 13) % 300, (i * 31 + k) % 40 - 8)
                      for i in range(300) for k in range(4) if (i * 7 + k * 13) % 300 > i])
    inputs = [os.path.join(testcases, c + ".in") for c in ("v333-random", "v500-disconnected")]
    for inp in inputs + [dag]:
        for ext in ("out", "npy"):
            mine, ref = (os.path.join(directory, "two.%s.%s" % (who, ext)) for who in ("cl", "cpu"))
            r = run(apsp, two + [inp, mine], **pocl)
            c = run(apsp, ["--backend=cpu", inp, ref], overlap="off")
            ok = r.returncode == 0 and c.returncode == 0 and read(mine) == read(ref)
            check.report("two devices at once, %s .%s: the pthread backend's bytes" % (
                      os.path.basename(inp), ext), ok, r.stderr[-300:] if not ok else "")
    # Whole float weights (the int32 kernels, each band of rows converted on its way): both
    # devices' bands at once, each converted apart (they once shared one buffer, and rows of
    # the first device came out as the second's).
    whole = os.path.join(directory, "whole.txt")
    write_edges(whole, [(i, (i * 37 + k * 11) % 1500, (i * 13 + k * 7) % 1000)
                        for i in range(1500) for k in range(10)])
    for dtype in ("float64", "float32"):
        mine, ref = (os.path.join(directory, "whole.%s.npy" % who) for who in ("cl", "cpu"))
        r = run(apsp, two + ["--dtype=" + dtype, whole, mine], **pocl)
        c = run(apsp, ["--backend=cpu", "--dtype=" + dtype, whole, ref], overlap="off")
        ok = r.returncode == 0 and c.returncode == 0 and read(mine) == read(ref)
        check.report("two devices at once, whole %s weights (the int32 kernels): the pthread "
                     "backend's bytes" % dtype, ok, r.stderr[-300:] if not ok else "")
    cycle = os.path.join(directory, "cycle.txt")
    # A chain over 400 vertices and a negative cycle among the last ones (the second device's).
    write_edges(cycle, [(i, i + 1, 3) for i in range(399)] + [(399, 390, -100)])
    out = os.path.join(directory, "cycle.out")
    with open(out, "wb") as f:
        f.write(OLD)
    r = run(apsp, two + [cycle, out], **pocl)
    ok, detail = kept(out, directory, r, out)
    check.report("two devices at once, a negative cycle in the second's rows: exit 7, the old "
                 "OUTPUT "
                 "kept", ok and r.returncode == 7, detail)


def fault_counts(apsp, inp):
    r = run(apsp, DEVICE + [inp, "/dev/null"], APSP_FAULT_COUNT="1")
    text = r.stderr.decode(errors="replace")
    if "apsp-fault:" not in text:
        return None
    fields = text.split("apsp-fault:")[1].split()
    return {k: int(v) for k, v in (f.split("=") for f in fields[:3])}


def kept(out, directory, r, name):
    left = [p for p in os.listdir(directory) if ".apsp-" in p]
    lines = r.stderr.decode(errors="replace").splitlines()
    return (read(out) == OLD and not left and len(lines) == 1 and lines[0].startswith("apsp: "),
            "exit %s, %r, left %s" % (r.returncode, lines[:3], left))


def paused(apsp, args, act):
    """Runs apsp until APSP_FAULT_PAUSE=prepared stops it, calls act(pid), lets it go on."""
    proc = subprocess.Popen([apsp] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE,
                            env=env_of("on", APSP_FAULT_PAUSE="prepared"))
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        err = proc.stderr.read()
        proc.stderr.close()
        return False, subprocess.CompletedProcess(args, os.waitstatus_to_exitcode(status), b"",
                                                  err)
    try:
        act(proc.pid)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    err = proc.stderr.read()
    proc.stderr.close()
    proc.wait(timeout=300)
    return True, subprocess.CompletedProcess(args, proc.returncode, b"", err)


def test_faults(apsp, testcases, shm_or_work, check):
    directory = shm_or_work
    inp = os.path.join(testcases, "v500-disconnected.in")
    want = read(os.path.join(testcases, "v500-disconnected.out"))
    counts = fault_counts(apsp, inp)
    if counts is None:
        pytest.skip("failures beside and after the rounds: no -Dfault_injection=true")
    out = os.path.join(directory, "old.out")
    with open(out, "wb") as f:
        f.write(OLD)
    r = run(apsp, DEVICE + [inp, out], APSP_FAULT="io:1")
    check.report("the preparation fails (io:1): the run writes the right output", r.returncode == 0
                 and read(out) == want, r.stderr[-300:])
    # The device's last calls read the rows back, after the rounds: each fails the run.
    for n in range(counts["cl"] - 2, counts["cl"] + 1):
        with open(out, "wb") as f:
            f.write(OLD)
        r = run(apsp, DEVICE + [inp, out], APSP_FAULT="cl:%d" % n)
        ok, detail = kept(out, directory, r, out)
        check.report("a device call after the rounds fails (cl:%d): the old OUTPUT kept" % n,
                     r.returncode != 0 and ok, detail)
    for what, act, code in (
            ("SIGTERM", lambda pid: os.kill(pid, signal.SIGTERM), None),
            ("its temporary file truncated", lambda pid: os.truncate(temp_fd(pid, directory), 0),
             4)):
        with open(out, "wb") as f:
            f.write(OLD)
        stopped, r = paused(apsp, DEVICE + [inp, out], act)
        ok, detail = kept(out, directory, r, out)
        if code is None:  # the signal's handler ends the run with the signal's status
            lines_ok = r.returncode != 0
            ok = read(out) == OLD and not [p for p in os.listdir(directory) if ".apsp-" in p]
        else:
            lines_ok = r.returncode == code and b"truncated" in r.stderr
        check.report("%s once the mapping is populated: the old OUTPUT kept" % what,
                     stopped and ok and lines_ok, detail)

