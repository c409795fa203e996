"""apsp-mpi end to end under mpirun (several ranks on few cores: --oversubscribe).

usage: pytest_main.py test_mpi.py::test_PART --exe mpirun MPIRUN --exe apsp-mpi APSP_MPI
           --apsp=APSP --exe gen-graph GEN_GRAPH --testcases=TESTCASES_DIR [--opt=grid=SPEC]
  PART  grid (--opt=grid=P:PRxPC[:plain][:opencl])
                                            every testcases/*.in against its .out and random
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
        faults_opencl                       (-Dfault_injection=true) every OpenCL call of
                                            rank 1 on --backend=opencl made to fail in turn,
                                            likewise
        signals                             a run interrupted (SIGKILL to a rank, SIGTERM or
                                            SIGINT to mpirun) leaves no temporary file and the
                                            old OUTPUT byte for byte; a rank stopped (SIGSTOP)
                                            leaves the others waiting at next to no CPU
        commit                              (-Dfault_injection=true) the temporary file
                                            truncated, or replaced by a link, while rank 0 is
                                            stopped before the rename, or truncated while a
                                            rank is stopped inside its stores into the file's
                                            mapping: exit 4, one line, the old OUTPUT byte for
                                            byte, no temporary file left
        mapped                              the bands stored into a shared mapping of the
                                            file on a local file system (-v), apsp's bytes on
                                            1, 2 and 4 ranks; with the pages faulted in
                                            beside OpenCL rounds (APSP_OVERLAP=on) too
        write_faults                        (-Dfault_injection=true) each rank's open of the
                                            temporary file and each of its band writes made
                                            to fail in turn, and the temporary file replaced
                                            by a link to another file before the write: exit
                                            4, one line, the old OUTPUT (and that file) byte
                                            for byte, no temporary file left; a file system
                                            without room for the output: exit 4 before the
                                            rounds, the old OUTPUT kept
"""
import atexit
import concurrent.futures
import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
from fault_walk import totals, walk_specs

TIMEOUT = 120  # a rank left waiting in a collective shows up as this
FAULT_RUNS_AT_ONCE = 4  # check_faults' mpirun jobs at a time
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


# Open MPI's session directory, this script's own: mpiruns of other tests started at the same
# moment (meson runs tests in parallel) share /tmp/ompi.HOST.UID otherwise, and one that ends
# can remove it under another that is making its own inside ("ORTE_ERROR_LOG: Error in file
# session_dir.c", exit 1, seen once with four mpirun tests running at once).
SESSION_BASE = tempfile.mkdtemp(prefix="apsp-mpi-test-")
atexit.register(shutil.rmtree, SESSION_BASE, ignore_errors=True)


def mpirun_command(tool, np, args, env_extra=None):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_orte_tmpdir_base=SESSION_BASE, PRTE_MCA_prte_tmpdir_base=SESSION_BASE)
    env.update(sanitizer_env())
    env.update(env_extra or {})
    return [tool.mpirun, "-q", "--oversubscribe", "-np", str(np), tool.apsp_mpi] + args, env


def mpirun(tool, np, args, env_extra=None, cwd=None):
    cmd, env = mpirun_command(tool, np, args, env_extra)
    try:
        return subprocess.run(cmd, capture_output=True, env=env, timeout=TIMEOUT, cwd=cwd)
    except subprocess.TimeoutExpired:
        pytest.fail(f"(hang?): {' '.join(cmd)} ran past {TIMEOUT} s", pytrace=False)


class Tools:
    def __init__(self, argv):
        # Absolute: some runs start in another directory (cwd).
        self.mpirun, self.apsp_mpi, self.apsp, self.gen_graph, self.testcases = (
            os.path.abspath(a) for a in argv[:5])


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def node_has_gpu(tool):
    """Whether apsp lists an OpenCL GPU here (apsp-mpi's auto then runs OpenCL's engine)."""
    listing = subprocess.run([tool.apsp, "--list-devices"], capture_output=True, text=True)
    return re.search(r"^\d+: .* \[gpu\] \(opencl backend\)$", listing.stdout, re.M) is not None


def check_grid(tool, spec, work):
    np_text, grid, *flags = spec.split(":")
    np = int(np_text)
    grid_args = [] if grid == "auto" else ["--grid=" + grid]
    grid_args += ["--no-look-ahead"] if "plain" in flags else []
    # The engine asked for: OpenCL's (flag opencl), else the pthread engine by name, except on
    # the auto grid, which leaves the engine to apsp-mpi too: OpenCL where the node has a GPU
    # (tests/gpu/suite.sh runs this on one), else the pthread engine.
    if "opencl" in flags:
        grid_args += ["--backend=opencl"]
    elif grid != "auto":
        grid_args += ["--backend=cpu"]
    opencl = "opencl" in flags or (grid == "auto" and node_has_gpu(tool))
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
        want = b"OpenCL" if opencl else b"1"  # the pthread engine: "N POSIX threads"
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
    # The ranks' lines reach us through mpirun, which may cut one rank's line to put another's in
    # the middle of it (seen on a 16-core host): the rank prefixes and the phase-3 figures are
    # counted apart, not matched as whole lines.
    prefixes = re.findall(rb"apsp-mpi: rank (\d+): profile, ms a round", r.stderr)
    ranks = sorted(int(x) for x in prefixes)
    phase3 = re.findall(rb"phase 3 ([0-9.]+), copies", r.stderr)
    ok = (r.returncode == 0 and ranks == list(range(int(np_text))) and len(phase3) == len(ranks)
          and all(float(x) > 0 for x in phase3) and same_bytes(out, expected))
    print(("ok" if ok else "FAIL") + f" APSP_PROFILE=1 on {spec}: {len(ranks)} profile line(s)")
    if not ok:
        print(r.stderr.decode(errors="replace"))
    return 0 if ok else 1


def leftovers(directory):
    return [n for n in os.listdir(directory) if ".apsp-" in n]


def expect_failure(tool, np, args, code, out, why, env_extra=None, says=None, cwd=None):
    """One error line from rank 0 (holding `says`, if given), apsp's exit code, no output, no
    temporary file."""
    report, failed = judge_failure(mpirun(tool, np, args, env_extra, cwd), code, out, why, says)
    print(report)
    return failed


def judge_failure(r, code, out, why, says=None):
    """expect_failure's verdict on a finished run: (the lines to print, 1 if it failed else 0)."""
    lines = r.stderr.decode(errors="replace").splitlines()
    lines = [l for l in lines if not l.startswith("apsp-fault:")]
    problems = []
    if r.returncode == 0 or (code is not None and r.returncode != code):
        problems.append(f"exit {r.returncode}, expected {code or 'non-zero'}")
    if len(lines) != 1 or not lines[0].startswith("apsp-mpi: "):
        problems.append(f"expected one 'apsp-mpi:' line, got {lines!r}")
    elif says and says not in lines[0]:
        problems.append(f"expected {says!r} in the line")
    if out and os.path.exists(out):
        problems.append(f"{out} exists")
    directory = os.path.dirname(out) if out and os.path.isdir(os.path.dirname(out)) else None
    if directory and leftovers(directory):
        problems.append(f"temporary files left: {leftovers(directory)}")
    report = ("FAIL " if problems else "ok ") + why + ("" if not problems else ": " + "; ".join(problems))
    if lines:
        report += "\n    " + lines[0]
    return report, 1 if problems else 0


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
    # OUTPUT "-": the ranks write at their offsets, which standard output cannot take; it made
    # a file named "-" (issue 36.5).
    failures += expect_failure(tool, 2, [good, "-"], 2, os.path.join(work, "-"),
                               "OUTPUT - (standard output)", says="name a file", cwd=work)
    # V = 2^31 - 1: apsp's words (the matrix can never be addressed), not "use more ranks".
    huge = os.path.join(work, "huge.in")
    with open(huge, "wb") as f:
        f.write((2**31 - 1).to_bytes(4, "little") + (0).to_bytes(4, "little"))
    failures += expect_failure(tool, 2, [huge, out], 5, out, "V = 2^31 - 1, no edges",
                               says="more memory than can be addressed")
    failures += expect_failure(tool, 3, ["--grid=2x2", good, out], 2, out, "a grid of 4 for 3 ranks")
    failures += expect_failure(tool, 2, ["--bogus", good, out], 2, out, "an unknown option")
    failures += expect_failure(tool, 2, ["--grid=1x2", "--grid=2x1", good, out], 2, out,
                               "an option of one value given twice")
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
    return failures + check_output_files(tool, work, good)


def check_output_files(tool, work, good):
    """OUTPUT as apsp's output code makes it: a replaced file keeps its mode, and one that only
    writing in place could replace (two hard links) is refused with the reason, kept as it was."""
    expected = good[:-3] + ".out"
    out = os.path.join(work, "moded.bin")
    with open(out, "wb") as f:
        f.write(b"old")
    os.chmod(out, 0o640)
    r = mpirun(tool, 2, [good, out])
    mode = os.stat(out).st_mode & 0o7777
    ok = r.returncode == 0 and same_bytes(out, expected) and mode == 0o640 and not leftovers(work)
    print(("ok" if ok else "FAIL") + f" a replaced OUTPUT keeps its mode (0640, got {mode:04o})")
    failures = 0 if ok else 1
    other = os.path.join(work, "other-name.bin")
    os.link(out, other)
    r = mpirun(tool, 2, [good, out])
    lines = [l for l in r.stderr.decode(errors="replace").splitlines() if l.startswith("apsp-mpi")]
    ok = (r.returncode == 4 and len(lines) == 1 and "2 hard links" in lines[0]
          and same_bytes(other, expected) and os.stat(out).st_nlink == 2 and not leftovers(work))
    print(("ok" if ok else "FAIL") + " an OUTPUT with two hard links: refused, kept, "
          + (lines[0] if lines else "no line"))
    for name in (out, other):
        os.unlink(name)
    return failures + (0 if ok else 1)


def check_faults(tool, work, kind="alloc", args=()):
    graph = os.path.join(tool.testcases, "v333-random.in")
    expected = graph[:-3] + ".out"
    out = os.path.join(work, "out.bin")
    args = list(args)
    # No kernel cache: with one, which call is the N-th depends on what an earlier run left there
    # (a rank that built the program stores it, and the next run loads it instead of building),
    # so a fault's run and its rerun could meet different calls.
    no_cache = {"APSP_KERNEL_CACHE": "off"}
    r = mpirun(tool, 2, args + [graph, out], dict(no_cache, APSP_FAULT_COUNT="1"))
    if r.returncode != 0 or not totals(r.stderr):
        pytest.fail(f"the clean run failed or this build has no fault injection: "
                    f"{r.stderr.decode()}", pytrace=False)
    os.unlink(out)

    def one_fault(number, rank, where):
        """(the lines to print, failures) of one run with the fault at `where` on `rank`: in a
        directory of its own, so that runs can go at once."""
        own = os.path.join(work, f"fault-{number}")
        os.mkdir(own)
        own_out = os.path.join(own, "out.bin")
        env = dict(no_cache, APSP_FAULT=where, APSP_FAULT_RANK=str(rank))
        why = f"{where} on rank {rank}"
        run = mpirun(tool, 2, args + [graph, own_out], env)
        if run.returncode == 0:  # a survivable fault (a thread not started), or none
            ok = same_bytes(own_out, expected)
            return ("ok" if ok else "FAIL") + f" {why}: the run went on, with the right answer", \
                0 if ok else 1
        return judge_failure(run, None, own_out, why)

    # Rank 0 reads, writes and sends; rank 1 only receives and computes. (Both ranks' sites are
    # walked on each; a site that a rank does not reach, or reaches fewer times, simply
    # succeeds there.) A run is mostly waiting (mpirun's start, and its wait before it ends the
    # other rank of a failed job: 1.4 s of 1.5 here), so FAULT_RUNS_AT_ONCE go at once.
    cases = [(rank, where) for rank in (0, 1) for where in walk_specs(r.stderr, (kind,))]
    with concurrent.futures.ThreadPoolExecutor(FAULT_RUNS_AT_ONCE) as pool:
        verdicts = list(pool.map(lambda c: one_fault(c[0], *c[1]), enumerate(cases)))
    for report, _ in verdicts:
        print(report)
    failures = sum(failed for _, failed in verdicts)
    return failures


# ---- signals: runs held at a known point by an input FIFO ---------------------------------------

OLD_OUTPUT = b"the previous output, kept byte for byte\n"
MEASURED = 3.0  # the others' CPU time is measured over this much wall time
MOST_CPU = 0.25  # of one core: a rank polling MPI spins at 100% of one; a quiet wait is near 0


def cpu_seconds(pid):
    """utime + stime of every thread of pid (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rank_pids(launcher, apsp_mpi):
    """{rank: pid} of the apsp-mpi processes below the launcher's pid, by the rank that Open MPI
    (OMPI_COMM_WORLD_RANK) or a PMI launcher (PMI_RANK) gives them."""
    exe = os.path.realpath(apsp_mpi)
    ranks = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.path.realpath(f"/proc/{entry}/exe") != exe:
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
            ancestor = int(entry)
            while ancestor > 1 and ancestor != launcher:
                with open(f"/proc/{ancestor}/stat") as f:
                    ancestor = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue  # gone, or not ours to read
        rank = env.get(b"OMPI_COMM_WORLD_RANK", env.get(b"PMI_RANK"))
        if ancestor == launcher and rank is not None:
            ranks[int(rank)] = int(entry)
    return ranks


class HeldRun:
    """apsp-mpi on 2 ranks whose INPUT is a FIFO: once the test's end of it opens, rank 0 is in
    the read (blocked until the test writes the graph) and so past making the temporary file
    and sharing its name, and rank 1 waits for rank 0 in the agreement after the read. Nothing
    depends on timing: the run cannot go on until the test says."""

    def __init__(self, tool, work):
        self.work, self.out = work, os.path.join(work, "out.bin")
        self.fifo = os.path.join(work, "graph.fifo")
        for stale in [self.fifo, self.out] + [os.path.join(work, n) for n in leftovers(work)]:
            if os.path.lexists(stale):
                os.unlink(stale)
        os.mkfifo(self.fifo)
        with open(self.out, "wb") as f:
            f.write(OLD_OUTPUT)
        # One thread of the pthread engine per rank: a GPU, or many cores, could finish the
        # rounds before the test stops a rank in them.
        args = ["--backend=cpu", "--threads=1", self.fifo, self.out]
        cmd, env = mpirun_command(tool, 2, args)
        self.log = open(os.path.join(work, "mpirun.log"), "w+b")
        self.process = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=self.log)
        self.writer, self.ranks = None, {}
        deadline = time.monotonic() + TIMEOUT
        while self.writer is None or len(self.ranks) < 2:
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.end()
                pytest.fail(f"the run never reached its read of the FIFO: {self.output()}",
                            pytrace=False)
            try:
                self.writer = self.writer or os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                time.sleep(0.01)
            self.ranks = rank_pids(self.process.pid, tool.apsp_mpi)
        os.set_blocking(self.writer, True)

    def feed(self, graph):
        """The whole graph into the FIFO, then its end: the read completes."""
        with open(graph, "rb") as f:
            data = memoryview(f.read())
        while data:  # blocking writes: rank 0 reads as they go
            data = data[os.write(self.writer, data):]
        os.close(self.writer)
        self.writer = None

    def wait(self):
        try:
            return self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.end()
            return None

    def end(self):
        """Everything this run started, gone (a failed check must not leave ranks behind)."""
        for pid in list(self.ranks.values()) + [self.process.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.process.wait()
        if self.writer is not None:
            os.close(self.writer)
            self.writer = None

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace").strip()

    def problems_after_kill(self):
        code = self.wait()
        with open(self.out, "rb") as f:
            kept = f.read() == OLD_OUTPUT
        problems = {0: ["mpirun exit 0"], None: [f"mpirun still there after {TIMEOUT} s"]}.get(
            code, [])
        problems += [] if kept else ["the old OUTPUT was changed"]
        problems += [f"temporary files left: {leftovers(self.work)}"] if leftovers(self.work) else []
        self.end()
        return problems


def check_killed(tool, work):
    """A run ended mid-way from outside: the temporary file goes, the old OUTPUT stays."""
    failures = 0
    # (SIGKILL to rank 1: in check_stopped, in the rounds.)
    for why, victim, sig in [("SIGKILL to rank 0", 0, signal.SIGKILL),
                             ("SIGTERM to mpirun", None, signal.SIGTERM),
                             ("SIGINT to mpirun", None, signal.SIGINT)]:
        run = HeldRun(tool, work)
        os.kill(run.process.pid if victim is None else run.ranks[victim], sig)
        problems = run.problems_after_kill()
        print(("FAIL " if problems else "ok ") + why + ": " + ("; ".join(problems) or
              "no temporary file left, the old OUTPUT kept"))
        failures += 1 if problems else 0
    return failures


def cpu_share(pid, seconds):
    """The share of one core that pid used over the next `seconds`."""
    t0, c0 = time.monotonic(), cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - c0) / (time.monotonic() - t0)


def quiet_while_stopped(run, stopped, why):
    """Rank `stopped` is stopped: once the other rank has finished the work it could do without
    it (its part of a round: it goes quiet, or 15 s pass), its CPU time over MEASURED seconds of
    wall time must be well below one busy core."""
    other = run.ranks[1 - stopped]
    deadline = time.monotonic() + 15
    while cpu_share(other, 0.5) >= MOST_CPU and time.monotonic() < deadline:
        pass
    share = cpu_share(other, MEASURED)
    ok = share < MOST_CPU and run.process.poll() is None
    print(("ok " if ok else "FAIL ") + f"{why}: rank {1 - stopped} used {share:.0%} of a core "
          f"while it waited (at most {MOST_CPU:.0%})")
    return 0 if ok else 1


def check_stopped(tool, work):
    failures = 0
    # Rank 1 stopped before rank 0 reads: rank 0 waits in the agreement after its read, then
    # the run goes on once rank 1 does, to the right answer.
    graph = os.path.join(tool.testcases, "v333-random.in")
    run = HeldRun(tool, work)
    os.kill(run.ranks[1], signal.SIGSTOP)
    run.feed(graph)
    failures += quiet_while_stopped(run, 1, "rank 1 stopped before the read")
    os.kill(run.ranks[1], signal.SIGCONT)
    code = run.wait()
    ok = code == 0 and same_bytes(run.out, graph[:-3] + ".out")
    print(("ok" if ok else "FAIL") + f" the same run, rank 1 continued: exit {code}" +
          (", the right answer" if ok else ": " + run.output()))
    failures += 0 if ok else 1
    run.end()
    # Rank 1 stopped in the rounds (once it has computed for a while: too many for one rank to
    # finish in that time, even on one fast core), then killed.
    big = os.path.join(work, "big.in")
    subprocess.run([tool.gen_graph, "random", "4096", str(4096 * 6), "11", big], check=True)
    run = HeldRun(tool, work)
    start = cpu_seconds(run.ranks[1])
    run.feed(big)
    while cpu_seconds(run.ranks[1]) - start < 0.3 and run.process.poll() is None:
        time.sleep(0.01)
    if run.process.poll() is not None:
        print(f"FAIL the run on V = 4096 ended before rank 1 could be stopped: {run.output()}")
        run.end()
        return failures + 1
    os.kill(run.ranks[1], signal.SIGSTOP)
    failures += quiet_while_stopped(run, 1, "rank 1 stopped in the rounds")
    os.kill(run.ranks[1], signal.SIGKILL)
    problems = run.problems_after_kill()
    print(("FAIL " if problems else "ok ") + "the same run, rank 1 killed: " +
          ("; ".join(problems) or "no temporary file left, the old OUTPUT kept"))
    return failures + (1 if problems else 0)


def check_signals(tool, work):
    return check_killed(tool, work) + check_stopped(tool, work)


# ---- commit: the temporary file changed by another process before the rename --------------------

def state(pid):
    """The one-letter state of pid (/proc/PID/stat field 3: 'T' when stopped); None once gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def paused_commit(tool, work, act, point="commit", rank=0):
    """apsp-mpi on 2 ranks with APSP_FAULT_PAUSE=commit (-Dfault_injection=true): rank 0 stops
    itself (SIGSTOP) once every rank has written, just before it checks the temporary file and
    renames it; the test calls act(temporary file), then sends SIGCONT. Returns (exit code,
    rank 0's error lines), or None when rank 0 never stopped there. Another point and rank:
    that rank stops there (APSP_FAULT_RANK: the others never do)."""
    out = os.path.join(work, "out.bin")
    with open(out, "wb") as f:
        f.write(OLD_OUTPUT)
    graph = os.path.join(tool.testcases, "v333-random.in")
    args = ["--backend=cpu", "--threads=1", graph, out]
    cmd, env = mpirun_command(tool, 2, args, {"APSP_FAULT_PAUSE": point,
                                              "APSP_FAULT_RANK": str(rank)})
    with open(os.path.join(work, "commit.log"), "w+b") as log:
        process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        deadline, ranks = time.monotonic() + TIMEOUT, {}
        while process.poll() is None and time.monotonic() < deadline and state(
                ranks.get(rank)) != "T":
            time.sleep(0.01)
            ranks = ranks if rank in ranks else rank_pids(process.pid, tool.apsp_mpi)
        stopped = state(ranks.get(rank)) == "T"
        if stopped:
            temps = leftovers(work)  # exactly one, or the run goes on untouched and fails
            try:
                if len(temps) == 1:
                    act(os.path.join(work, temps[0]))
            finally:
                os.kill(ranks[rank], signal.SIGCONT)
        try:
            code = process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            for pid in list(ranks.values()) + [process.pid]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            code = process.wait()
        log.seek(0)
        lines = [l for l in log.read().decode(errors="replace").splitlines()
                 if not l.startswith("apsp-fault:")]
    return (code, lines) if stopped else None


def check_commit(tool, work):
    """Another process truncates the temporary file to half its length while rank 0 is stopped
    before the rename: exit 4 and one line naming both lengths, the old OUTPUT byte for byte, no
    temporary file left; the same for a symbolic link put in its place. And the same stop with the
    file left alone: exit 0, the right answer."""
    expected = os.path.join(tool.testcases, "v333-random.out")  # the oracle: V x V int32
    length = os.path.getsize(expected)
    out = os.path.join(work, "out.bin")
    failures = 0
    decoy = os.path.join(work, "decoy.bin")  # a file of the right length, not the output

    def swap_for_link(temp):
        with open(decoy, "wb") as f:
            f.write(b"\0" * length)
        os.unlink(temp)
        os.symlink(decoy, temp)

    for why, act, want_code, detail in [
            ("the temporary file truncated to half before the rename",
             lambda temp: os.truncate(temp, length // 2), 4,
             f"{length // 2} of its {length} bytes left"),
            ("the temporary file replaced by a link to a file of the right length", swap_for_link,
             4, "put something else in the place of the temporary file"),
            ("the temporary file left alone", lambda temp: None, 0, None)]:
        result = paused_commit(tool, work, act)
        if result is None:
            print(f"FAIL {why}: rank 0 never stopped at the commit (no fault injection?)")
            failures += 1
            continue
        code, lines = result
        problems = [f"exit {code}, expected {want_code}"] if code != want_code else []
        if want_code == 0:
            problems += [] if same_bytes(out, expected) else ["OUTPUT is not the right answer"]
        else:
            if len(lines) != 1 or not lines[0].startswith("apsp-mpi: ") or detail not in lines[0]:
                problems.append(f"expected one 'apsp-mpi:' line saying {detail!r}, got {lines!r}")
            with open(out, "rb") as f:
                problems += [] if f.read() == OLD_OUTPUT else ["the old OUTPUT was changed"]
        if leftovers(work):
            problems.append(f"temporary files left: {leftovers(work)}")
        print(("FAIL " if problems else "ok ") + why + ("" if not problems else ": " +
              "; ".join(problems)))
        if lines:
            print("   ", lines[0])
        failures += 1 if problems else 0
    return failures


def check_stores_truncated(tool, work):
    """Issue 37.3: the temporary file truncated to 0 while one rank is stopped inside its copy of
    a band into the file's shared mapping, after the first row's stores (APSP_FAULT_PAUSE=
    stores-begun, a point that only the stores reach): the next store raises SIGBUS, which the
    fault guard turns into an error of the copy. Exit 4, one line saying so, the old OUTPUT byte
    for byte, no temporary file left: never a rank killed by the signal."""
    failures = 0
    for rank in (0, 1):
        why = f"the temporary file truncated to 0 inside rank {rank}'s stores into the mapping"
        result = paused_commit(tool, work, lambda temp: os.truncate(temp, 0), "stores-begun", rank)
        if result is None:
            print(f"FAIL {why}: rank {rank} never stopped in its stores (not the mapped write?)")
            failures += 1
            continue
        code, lines = result
        problems = [f"exit {code}, expected 4"] if code != 4 else []
        says = "another process truncated the file while it was written"
        if len(lines) != 1 or not lines[0].startswith("apsp-mpi: ") or says not in lines[0]:
            problems.append(f"expected one 'apsp-mpi:' line saying {says!r}, got {lines!r}")
        with open(os.path.join(work, "out.bin"), "rb") as f:
            problems += [] if f.read() == OLD_OUTPUT else ["the old OUTPUT was changed"]
        problems += [f"temporary files left: {leftovers(work)}"] if leftovers(work) else []
        print(("FAIL " if problems else "ok ") + why + (": " + "; ".join(problems) if problems
                                                        else ""))
        failures += 1 if problems else 0
    return failures


def check_mapped(tool, work):
    """Issue 37.3: on a local file system (the work directory's, and tmpfs where there is one)
    the ranks store their bands into a shared mapping of the file (-v says so) and the output is
    apsp's byte for byte, on 1, 2 and 4 ranks, V = 333 (not a multiple of 128); and with the
    pages faulted in beside the rounds (APSP_OVERLAP=on, OpenCL ranks on PoCL's CPU device):
    --stats-json says the write was mapped and the faulting-in ran."""
    graph = os.path.join(tool.testcases, "v333-random.in")
    expected = os.path.join(work, "apsp.bin")
    subprocess.run([tool.apsp, "--backend=cpu", "-q", graph, expected], check=True)
    failures = 0
    dirs = [work] + ([tempfile.mkdtemp(prefix="apsp-mpi-mapped-", dir="/dev/shm")]
                     if os.path.isdir("/dev/shm") else [])
    try:
        for d, np in [(d, np) for d in dirs for np in (1, 2, 4)]:
            out = os.path.join(d, "out.bin")
            r = mpirun(tool, np, ["--backend=cpu", "-v", graph, out])
            mapped = b"output stored into a shared mapping of the file" in r.stderr
            ok = r.returncode == 0 and mapped and same_bytes(out, expected)
            print(("ok" if ok else "FAIL") + f" {np} rank(s) in {d}: exit {r.returncode}, "
                  f"mapped {mapped}, " + ("apsp's bytes" if r.returncode == 0 and
                                          same_bytes(out, expected) else "NOT apsp's bytes"))
            failures += 0 if ok else 1
    finally:
        for d in dirs[1:]:
            shutil.rmtree(d, ignore_errors=True)
    out = os.path.join(work, "beside.bin")
    r = mpirun(tool, 2, ["--backend=opencl", "--stats-json", graph, out], {"APSP_OVERLAP": "on"})
    if b"without OpenCL" in r.stderr or b"no OpenCL" in r.stderr:
        print("skip the pages faulted in beside OpenCL rounds: no OpenCL here")
        return failures
    stats = re.search(rb'"overlapped_s":([0-9.]+),"write_mapped":(true|false)', r.stderr)
    ok = (r.returncode == 0 and stats is not None and float(stats.group(1)) > 0
          and stats.group(2) == b"true" and same_bytes(out, expected))
    print(("ok" if ok else "FAIL") + " 2 OpenCL ranks, APSP_OVERLAP=on: " +
          (stats.group(0).decode() if stats else f"exit {r.returncode}: {r.stderr.decode()}"))
    return failures + (0 if ok else 1)


def check_write_faults(tool, work):
    """Each rank's writes of the output (its open by name, each band's pwrite) failing in turn
    (APSP_FAULT=io:N on one rank): every rank stops, exit 4 and one line naming OUTPUT, the old
    OUTPUT byte for byte, no temporary file left."""
    graph = os.path.join(tool.testcases, "v333-random.in")
    out = os.path.join(work, "out.bin")
    args = ["--backend=cpu", graph, out]
    r = mpirun(tool, 2, args, {"APSP_FAULT_COUNT": "1"})
    counts = [int(m) for m in re.findall(rb"apsp-fault: .*\bio=(\d+)", r.stderr)]
    if r.returncode != 0 or not same_bytes(out, graph[:-3] + ".out") or len(counts) != 2:
        pytest.fail(f"the clean run failed or this build has no fault injection: "
                    f"{r.stderr.decode()}", pytrace=False)
    failures = 0
    if min(counts) == 0:  # MPI-IO's writes: no fault point, nothing of this walked
        print(f"FAIL a rank's writes have no fault point (io counts {counts})")
        failures += 1
    for rank in (0, 1):
        for n in range(1, counts[rank] + 1):
            with open(out, "wb") as f:
                f.write(OLD_OUTPUT)
            r = mpirun(tool, 2, args, {"APSP_FAULT": f"io:{n}", "APSP_FAULT_RANK": str(rank)})
            lines = [l for l in r.stderr.decode(errors="replace").splitlines()
                     if not l.startswith("apsp-fault:")]
            problems = [f"exit {r.returncode}, expected 4"] if r.returncode != 4 else []
            if len(lines) != 1 or not lines[0].startswith(f"apsp-mpi: {out}: writing the output"):
                problems.append(f"expected one 'apsp-mpi: {out}: writing the output' line, "
                                f"got {lines!r}")
            with open(out, "rb") as f:
                problems += [] if f.read() == OLD_OUTPUT else ["the old OUTPUT was changed"]
            problems += [f"temporary files left: {leftovers(work)}"] if leftovers(work) else []
            print(("FAIL " if problems else "ok ") + f"io:{n} on rank {rank}" +
                  (": " + "; ".join(problems) if problems else ""))
            failures += 1 if problems else 0
    return failures


def check_write_link(tool, work):
    """The temporary file replaced by a symbolic link to another file while the run reads: no
    rank writes through it (the other ranks open the name with O_NOFOLLOW, rank 0 writes its
    own descriptor): exit 4, one line, that file and the old OUTPUT byte for byte, no temporary
    name left."""
    decoy, kept = os.path.join(work, "decoy.bin"), b"another file of the user's\n"
    with open(decoy, "wb") as f:
        f.write(kept)
    run = HeldRun(tool, work)
    temps = leftovers(work)
    if len(temps) != 1:
        run.end()
        print(f"FAIL the held run has not one temporary file: {temps}")
        return 1
    os.unlink(os.path.join(work, temps[0]))
    os.symlink(decoy, os.path.join(work, temps[0]))
    run.feed(os.path.join(tool.testcases, "v333-random.in"))
    code = run.wait()
    lines = [l for l in run.output().splitlines() if not l.startswith("apsp-fault:")]
    problems = [f"exit {code}, expected 4"] if code != 4 else []
    says = "put something else in the place of the temporary file"
    problems += [] if len(lines) == 1 and lines[0].startswith("apsp-mpi: ") and says in lines[0] \
        else [f"expected one 'apsp-mpi:' line saying {says!r}, got {lines!r}"]
    for name, want in ((decoy, kept), (run.out, OLD_OUTPUT)):
        with open(name, "rb") as f:
            problems += [] if f.read() == want else [f"{name} was written"]
    problems += [f"temporary files left: {leftovers(work)}"] if leftovers(work) else []
    print(("FAIL " if problems else "ok ") + "the temporary file replaced by a link" +
          (": " + "; ".join(problems) if problems else ""))
    if lines:
        print("   ", lines[0])
    return 1 if problems else 0


def check_disk_room(tool, work):
    """A file system without room for the output (a 64 KiB tmpfs, 443556 bytes to write): exit 4
    before the rounds, one line saying 'no room', the old OUTPUT byte for byte, nothing else
    there. Root and a private mount namespace only (else skipped)."""
    script = """
        d=$1; shift
        mount -t tmpfs -o size=64k tmpfs "$d" || exit 97
        printf 'old output' > "$d/out.bin"
        "$@" "$d/out.bin"; rc=$?
        printf 'old output' | cmp -s "$d/out.bin" - && echo kept >&2
        ls -A "$d" >&2
        exit $rc
    """
    d = os.path.join(work, "small")
    os.mkdir(d)
    cmd, env = mpirun_command(tool, 2, ["--backend=cpu",
                                        os.path.join(tool.testcases, "v333-random.in")])
    try:
        p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                            d] + cmd, capture_output=True, env=env, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        p = None
    if os.geteuid() != 0 or p is None or p.returncode == 97:
        print("skip a file system without room for the output: needs root and unshare -m")
        return 0
    lines = p.stderr.decode(errors="replace").splitlines()
    ok = (p.returncode == 4 and len(lines) == 3 and "no room" in lines[0]
          and lines[1:] == ["kept", "out.bin"])
    print(("ok" if ok else "FAIL") + " a file system without room for the output: exit "
          f"{p.returncode}, {lines!r}")
    return 0 if ok else 1


@pytest.fixture(scope="module")
def tool(exe, apsp_path, testcases):
    return Tools([exe["mpirun"], exe["apsp-mpi"], apsp_path, exe["gen-graph"], testcases])


def passed(failures):
    assert not failures, "%d failure(s), each printed above (FAIL ...)" % failures


def test_grid(tool, work, opt):
    spec = opt["grid"]
    failures = check_grid(tool, spec, work)
    if "opencl" in spec:
        failures += check_profile(tool, spec, work)
    passed(failures)


def test_errors(tool, work):
    passed(check_errors(tool, work))


def test_faults(tool, work):
    passed(check_faults(tool, work))


def test_faults_opencl(tool, work):
    passed(check_faults(tool, work, "cl", ["--backend=opencl"]))


def test_signals(tool, work):
    passed(check_signals(tool, work))


def test_commit(tool, work):
    passed(check_commit(tool, work) + check_stores_truncated(tool, work))


def test_mapped(tool, work):
    passed(check_mapped(tool, work))


def test_write_faults(tool, work):
    passed(check_write_faults(tool, work) + check_write_link(tool, work) +
           check_disk_room(tool, work))
