#!/usr/bin/env python3
"""CPU benchmark: apsp's pthread backend beside three yardsticks, on the same generated graphs.

For each size n it writes a seeded random graph in the hw3 format and runs, interleaved so that
a noisy shared machine spreads its noise evenly, R repetitions of:

  - apsp --backend=cpu with 1 and 2 threads, with its default micro-kernel (AVX-512 where the
    CPU has it) and again with APSP_CPU_ISA=avx2;
  - course_cpu (tests/bench/course_cpu.c): the course reports' CPU scheme, plain Floyd-Warshall
    with the rows split over pthreads and a barrier per k;
  - SciPy's scipy.sparse.csgraph.floyd_warshall on the dense matrix (one thread; fewer runs and
    only up to --scipy-max-n, since it is slow: 20-30 s at n = 3000);
  - apsp --backend=opencl --device=cpu (PoCL), where this apsp has an OpenCL backend, else n/a;
  - the add-min ceiling probe (tests/bench/ceiling.c) with 1 and 2 threads, AVX2 and AVX-512.

It reports, per program, the median compute seconds (apsp's from -v, course_cpu's and SciPy's own
timing of the computation), the median whole-process wall seconds, G relax/s = V^3 / compute
seconds (apsp computes n^3 relaxations on its padded n, shown apart), median and best, the
speed-up over course_cpu and over SciPy, and the share of the ceiling (the best probe run with
the same thread count). CPU over wall seconds of each process shows how many cores it really had
on a shared machine.
It checks that every output is byte-identical to course_cpu's (or apsp's) and prints MISMATCH
otherwise (exit status 1). A compact markdown table comes last.

SciPy is used only from a virtual environment this script makes on demand (.venv-bench at the
root of the repository: python3 -m venv, then pip install numpy scipy); if that fails, SciPy is
skipped with a note. Nothing here is a test: there are no thresholds.

Standard library only. Run from anywhere:
  python3 tests/bench/bench_cpu.py [--sizes 1000 2000 3000] [--reps 5]
"""

import argparse
import array
import hashlib
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INF = 1073741823
MAX_WEIGHT = 1000
# Ceiling probe iterations per ISA, about 0.25 s per run on a 3.7 GHz Zen 4 core.
CEILING_ITERATIONS = {"avx2": 200_000_000, "avx512": 50_000_000}

SCIPY_RUNNER = r'''
import sys, time
import numpy as np
from scipy.sparse.csgraph import floyd_warshall

raw = np.fromfile(sys.argv[1], dtype="<i4")
v, e = int(raw[0]), int(raw[1])
edges = raw[2:2 + 3 * e].reshape(e, 3)
g = np.full((v, v), np.inf)
# A dense csgraph treats 0 as "no edge": zero-weight edges become 1e-7, which the rounding below
# takes back off (a path has fewer than 40000 edges, so the extra stays under 0.004).
w = edges[:, 2].astype(np.float64)
w[w == 0] = 1e-7
np.minimum.at(g, (edges[:, 0], edges[:, 1]), w)
np.fill_diagonal(g, 0.0)
t0 = time.perf_counter()
d = floyd_warshall(g, directed=True)
t1 = time.perf_counter()
out = np.where(np.isinf(d), %d, np.rint(d)).astype("<i4")
out.tofile(sys.argv[2])
print("scipy: V = %%d, compute %%.3f s" %% (v, t1 - t0))
''' % INF

mismatches = []
failures = []


def say(*args):
    print(*args, flush=True)


def loud(message):
    line = "*" * 78
    text = "\n%s\n*** %s\n%s" % (line, message, line)
    print(text, flush=True)
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Inputs


def write_graph(path, v, edges_per_vertex, seed):
    """A random directed graph: E = edges_per_vertex * V distinct edges, no self-loops, weights
    uniform in 0..1000. The last V/100 vertices get no incoming edges, so the output has
    unreachable pairs too."""
    rng = random.Random(seed * 1000003 + v)
    targets = max(1, v - v // 100)
    e = min(edges_per_vertex * v, v * (v - 1) - (v - targets) * (v - 1))
    seen = set()
    data = array.array("i", [v, e])
    while len(seen) < e:
        s = rng.randrange(v)
        d = rng.randrange(targets)
        if s == d or (s, d) in seen:
            continue
        seen.add((s, d))
        data.extend((s, d, rng.randint(0, MAX_WEIGHT)))
    if sys.byteorder != "little":
        data.byteswap()
    with open(path, "wb") as f:
        data.tofile(f)
    return e


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# Programs


def compile_c(source, out):
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-std=c11", "-O3", "-pthread", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE",
           str(source), "-o", str(out)]
    say("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True)
    return out


def find_or_build(name, given, tmp):
    if given:
        return Path(given)
    built = ROOT / "build" / "tests" / "bench" / name
    if built.exists():
        return built
    return compile_c(ROOT / "tests" / "bench" / (name + ".c"), Path(tmp) / name)


def scipy_python(venv, allow_install):
    """The venv's python with numpy and scipy importable, or (None, reason)."""
    py = venv / "bin" / "python"
    check = [str(py), "-c", "import numpy, scipy; print(scipy.__version__)"]
    if py.exists():
        r = subprocess.run(check, capture_output=True, text=True)
        if r.returncode == 0:
            return py, "SciPy " + r.stdout.strip()
    if not allow_install:
        return None, "no SciPy in %s (and --no-install)" % venv
    say("# making %s for SciPy (python3 -m venv; pip install numpy scipy)" % venv)
    try:
        if not py.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "numpy", "scipy"], check=True,
                       timeout=900)
        r = subprocess.run(check, capture_output=True, text=True, check=True)
        return py, "SciPy " + r.stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        return None, "SciPy skipped: could not set up %s (%s)" % (venv, err)


class Entry:
    """One line of the report: a program with its settings, and its samples for one size."""

    def __init__(self, key, program, threads, isa, reps):
        self.key, self.program, self.threads, self.isa, self.reps = key, program, threads, isa, reps
        self.compute, self.wall, self.cpu, self.rate = [], [], [], []
        self.padded = None
        self.note = ""
        self.unavailable = None

    def median(self, values):
        return statistics.median(values) if values else None


def timed(cmd, env=None):
    """Runs cmd; returns its CompletedProcess and (wall seconds, CPU seconds of the process).
    CPU over wall shows how many cores it really had: on a shared machine a 2-thread run whose
    ratio is well under 2 lost a core to someone else for part of the time."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        r = subprocess.CompletedProcess(cmd, p.returncode, out.read(), err.read())
    return r, (wall, usage.ru_utime + usage.ru_stime)


def last_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else "(no output)"


def run_apsp(entry, apsp, graph, out, env_extra, backend_args):
    env = dict(os.environ)
    env.pop("APSP_CPU_ISA", None)
    env.update(env_extra)
    cmd = [str(apsp)] + backend_args + ["-v", "-q", str(graph), str(out)]
    r, wall = timed(cmd, env)
    if r.returncode != 0:
        return None, wall, "exit %d: %s" % (r.returncode, last_line(r.stderr))
    m = re.search(r"compute ([0-9.]+) s", r.stderr)
    p = re.search(r"padded to (\d+)", r.stderr)
    isa = re.search(r"threads, (\w+)", r.stderr)
    dev = re.search(r"backend \S+ on (.*?); V =", r.stderr)
    if not m:
        return None, wall, "no compute time in: " + last_line(r.stderr)
    entry.padded = int(p.group(1)) if p else None
    if isa:
        entry.isa = isa.group(1)
    if dev and not isa:
        entry.note = dev.group(1)
    return float(m.group(1)), wall, None


def run_course(course, threads, graph, out):
    r, wall = timed([str(course), str(threads), str(graph), str(out)])
    if r.returncode != 0:
        return None, wall, "exit %d: %s" % (r.returncode, last_line(r.stderr))
    m = re.search(r"compute ([0-9.]+) s", r.stdout)
    return (float(m.group(1)) if m else None), wall, None if m else "no time: " + r.stdout


def run_scipy(py, runner, graph, out):
    r, wall = timed([str(py), str(runner), str(graph), str(out)])
    if r.returncode != 0:
        return None, wall, "exit %d: %s" % (r.returncode, last_line(r.stderr))
    m = re.search(r"compute ([0-9.]+) s", r.stdout)
    return (float(m.group(1)) if m else None), wall, None if m else "no time: " + r.stdout


def run_ceiling(ceiling, threads, isa):
    r, wall = timed([str(ceiling), str(threads), isa, str(CEILING_ITERATIONS[isa])])
    if r.returncode == 77:
        return None, wall, "not supported by this CPU"
    if r.returncode != 0:
        return None, wall, "exit %d: %s" % (r.returncode, last_line(r.stderr))
    t = re.search(r"slowest thread ([0-9.]+) s, ([0-9.]+) G relax/s", r.stdout)
    return (float(t.group(1)), float(t.group(2)) * 1e9), wall, None


# ---------------------------------------------------------------------------------------------
# One size


def bench_size(n, args, progs, tmp):
    graph = Path(tmp) / ("g%d.in" % n)
    e = write_graph(graph, n, args.edges_per_vertex, args.seed)
    say("\n## n = %d (E = %d, seed %d)" % (n, e, args.seed))
    reps = args.reps
    entries = []

    def add(key, program, threads, isa, count):
        entries.append(Entry(key, program, threads, isa, count))

    for t in (1, 2):
        add("apsp-t%d" % t, "apsp cpu", t, "default", reps)
    for t in (1, 2):
        add("apsp-avx2-t%d" % t, "apsp cpu", t, "avx2", reps)
    for t in args.course_threads:
        add("course-t%d" % t, "course_cpu", t, "baseline", reps)
    use_scipy = progs["scipy"] is not None and n <= args.scipy_max_n and args.scipy_reps > 0
    add("scipy", "scipy floyd_warshall", 1, "numpy build", args.scipy_reps if use_scipy else 0)
    add("opencl", "apsp opencl (PoCL)", os.cpu_count() or 1, "PoCL", args.opencl_reps)
    for isa in ("avx2", "avx512"):
        for t in (1, 2):
            add("ceil-%s-t%d" % (isa, t), "ceiling", t, isa, reps)
    by_key = {en.key: en for en in entries}
    if not use_scipy:
        by_key["scipy"].unavailable = progs["scipy_note"] if progs["scipy"] is None else (
            "not run at n > %d (--scipy-max-n)" % args.scipy_max_n)
    if args.no_opencl:
        by_key["opencl"].unavailable = "--no-opencl"

    hashes = {}  # key -> set of output hashes
    out = Path(tmp) / "out.bin"
    for rep in range(max(reps, args.scipy_reps, args.opencl_reps)):
        for en in entries:
            if en.unavailable or rep >= en.reps:
                continue
            if en.key.startswith("apsp"):
                env = {"APSP_CPU_ISA": "avx2"} if en.isa == "avx2" else {}
                res = run_apsp(en, progs["apsp"], graph, out, env,
                               ["--backend=cpu", "--threads=%d" % en.threads])
            elif en.key.startswith("course"):
                res = run_course(progs["course"], en.threads, graph, out)
            elif en.key == "scipy":
                res = run_scipy(progs["scipy"], progs["scipy_runner"], graph, out)
            elif en.key == "opencl":
                res = run_apsp(en, progs["apsp"], graph, out, {},
                               ["--backend=opencl", "--device=cpu"])
            else:
                res = run_ceiling(progs["ceiling"], en.threads, en.isa)
            value, (wall, cpu), error = res
            if not error and not en.key.startswith("ceil"):
                # Times are printed in milliseconds: 0.000 means under half a millisecond.
                value = max(value, 0.0005)
            if error:
                if en.key == "opencl":
                    en.unavailable = "n/a (%s)" % error
                elif en.key.startswith("ceil") and "not supported" in error:
                    en.unavailable = error
                else:
                    loud("FAILED: %s at n = %d: %s" % (en.key, n, error))
                    failures.append((n, en.key, error))
                    en.unavailable = "failed: " + error
                say("  %-16s %s" % (en.key, en.unavailable))
                continue
            if en.key.startswith("ceil"):
                seconds, rate = value
                en.compute.append(seconds)
                en.rate.append(rate)
                say("  rep %d %-16s %.3f s  %6.2f G relax/s  cpu/wall %.2f" % (
                    rep + 1, en.key, seconds, rate / 1e9, cpu / wall))
            else:
                en.compute.append(value)
                en.rate.append(n ** 3 / value)
                hashes.setdefault(en.key, set()).add(sha256(out))
                say("  rep %d %-16s compute %.3f s  wall %.3f s  %6.2f G relax/s  cpu/wall %.2f"
                    % (rep + 1, en.key, value, wall, n ** 3 / value / 1e9, cpu / wall))
            en.wall.append(wall)
            en.cpu.append(cpu / wall)
            if out.exists():
                out.unlink()
    graph.unlink()

    reference_key = next((k for k in ("course-t%d" % t for t in args.course_threads)
                          if k in hashes), None) or next(iter(hashes), None)
    if reference_key:
        reference = hashes[reference_key]
        for key, hs in hashes.items():
            if len(hs) != 1 or hs != reference:
                loud("MISMATCH at n = %d: %s's output differs from %s's" % (n, key,
                                                                           reference_key))
                mismatches.append((n, key))
        if not any(m[0] == n for m in mismatches):
            say("  outputs: all %d programs byte-identical (sha256 %s...)" % (
                len(hashes), next(iter(reference))[:16]))
    return entries


# ---------------------------------------------------------------------------------------------
# Report


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def summarise(n, entries, args):
    by_key = {en.key: en for en in entries}

    def med_compute(key):
        en = by_key.get(key)
        return en.median(en.compute) if en and not en.unavailable else None

    course_key = "course-t%d" % (2 if 2 in args.course_threads else args.course_threads[0])
    course_s = med_compute(course_key)
    scipy_s = med_compute("scipy")
    ceilings = {}
    for isa in ("avx2", "avx512"):
        for t in (1, 2):
            en = by_key["ceil-%s-t%d" % (isa, t)]
            # The ceiling is the best probe run: other users of the machine can only lower it.
            ceilings[(isa, t)] = max(en.rate) if en.rate and not en.unavailable else None
    rows = []
    for en in entries:
        row = {"n": n, "program": en.program, "threads": en.threads, "isa": en.isa,
               "runs": len(en.rate), "note": en.unavailable or en.note}
        if en.unavailable or not en.rate:
            rows.append(row)
            continue
        row["wall"] = en.median(en.wall)
        row["cpu"] = en.median(en.cpu)
        row["rate"] = en.median(en.rate)
        row["best"] = max(en.rate)
        if not en.key.startswith("ceil"):
            c = en.median(en.compute)
            row["compute"] = c
            if en.padded and en.padded != n:
                row["padded_rate"] = en.padded ** 3 / c
                row["padded"] = en.padded
            row["x_course"] = course_s / c if course_s else None
            row["x_scipy"] = scipy_s / c if scipy_s else None
        t = min(en.threads, 2)
        for isa in ("avx2", "avx512"):
            ceil = ceilings[(isa, t)]
            row["ceil_" + isa] = row["rate"] / ceil if ceil else None
        rows.append(row)
    return rows


def print_rows(rows):
    say("| n | program | thr | ISA | compute s | wall s | cpu/wall | G relax/s | best G relax/s | "
        "x course | x scipy | % AVX2 ceil | % AVX-512 ceil | runs |")
    say("|" + "---|" * 14)
    for r in rows:
        if r.get("rate") is None:
            note = r["note"].replace("|", "/")
            if not note.startswith("n/a"):
                note = "n/a: " + note
            say("| %d | %s | %d | %s | %s | | | | | | | | | 0 |" % (
                r["n"], r["program"], r["threads"], r["isa"], note))
            continue
        rate = fmt(r["rate"] / 1e9, ".2f")
        if r.get("padded_rate"):
            rate += " (%.2f at n=%d)" % (r["padded_rate"] / 1e9, r["padded"])
        pct = {k: fmt(r.get(k) and 100 * r[k], ".0f") for k in ("ceil_avx2", "ceil_avx512")}
        say("| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |" % (
            r["n"], r["program"], r["threads"], r["isa"], fmt(r.get("compute"), ".3f"),
            fmt(r.get("wall"), ".3f"), fmt(r.get("cpu"), ".2f"), rate, fmt(r["best"] / 1e9, ".2f"),
            fmt(r.get("x_course"), ".1f"), fmt(r.get("x_scipy"), ".1f"), pct["ceil_avx2"],
            pct["ceil_avx512"], r["runs"]))


def machine_summary():
    model = "unknown CPU"
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown CPU":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    simd = [f for f in ("sse4_1", "avx2", "avx512f", "avx512bw", "avx512vl") if f in flags]
    return "%s, %d logical CPUs, SIMD: %s" % (model, os.cpu_count() or 1, " ".join(simd) or "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 3000])
    ap.add_argument("--reps", type=int, default=5, help="repetitions per program (default 5)")
    ap.add_argument("--scipy-reps", type=int, default=1, help="SciPy repetitions (default 1)")
    ap.add_argument("--scipy-max-n", type=int, default=3000,
                    help="largest n SciPy runs at (default 3000)")
    ap.add_argument("--opencl-reps", type=int, default=3,
                    help="apsp --backend=opencl repetitions (default 3)")
    ap.add_argument("--no-opencl", action="store_true", help="skip the PoCL line")
    ap.add_argument("--course-threads", type=int, nargs="+", default=[2],
                    help="course_cpu thread counts (default 2)")
    ap.add_argument("--edges-per-vertex", type=int, default=20, help="E = this * V (default 20)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--apsp", help="apsp binary (default build/src/apsp)")
    ap.add_argument("--course", help="course_cpu binary (default: build/tests/bench, or compile)")
    ap.add_argument("--ceiling", help="ceiling binary (default: build/tests/bench, or compile)")
    ap.add_argument("--venv", default=str(ROOT / ".venv-bench"),
                    help="virtual environment for SciPy (default .venv-bench)")
    ap.add_argument("--no-install", action="store_true",
                    help="do not create the venv or pip install; skip SciPy if it is missing")
    ap.add_argument("--no-scipy", action="store_true")
    args = ap.parse_args()
    if args.reps < 1 or any(n < 2 for n in args.sizes):
        ap.error("--reps must be at least 1 and every size at least 2")

    tmp = tempfile.mkdtemp(prefix="apsp-bench-")
    try:
        progs = {"apsp": Path(args.apsp) if args.apsp else ROOT / "build" / "src" / "apsp"}
        if not progs["apsp"].exists():
            sys.exit("bench_cpu: %s not found (build first: ninja -C build)" % progs["apsp"])
        progs["course"] = find_or_build("course_cpu", args.course, tmp)
        progs["ceiling"] = find_or_build("ceiling", args.ceiling, tmp)
        # Run copies, so that a rebuild in the middle of the run cannot mix two versions.
        label = {k: str(v) for k, v in progs.items()}
        for key in ("apsp", "course", "ceiling"):
            copy = Path(tmp) / ("bin-" + key)
            shutil.copy2(progs[key], copy)
            progs[key] = copy
        if args.no_scipy:
            progs["scipy"], progs["scipy_note"] = None, "--no-scipy"
        else:
            progs["scipy"], progs["scipy_note"] = scipy_python(Path(args.venv), not args.no_install)
        if progs["scipy"]:
            runner = Path(tmp) / "scipy_fw.py"
            runner.write_text(SCIPY_RUNNER)
            progs["scipy_runner"] = runner
        say("# apsp CPU benchmark, %s" % time.strftime("%Y-%m-%d %H:%M:%S"))
        say("# machine: %s; load average at start %.2f %.2f %.2f" % (
            (machine_summary(),) + os.getloadavg()))
        say("# apsp: %s; course_cpu: %s; ceiling: %s" % (label["apsp"], label["course"],
                                                         label["ceiling"]))
        say("# %s" % (progs["scipy_note"]))
        say("# graphs: E = %d*V random distinct edges (seed %d), weights 0..%d, the last V/100 "
            "vertices without in-edges; %d repetitions, interleaved" % (
                args.edges_per_vertex, args.seed, MAX_WEIGHT, args.reps))
        all_rows = []
        for n in args.sizes:
            entries = bench_size(n, args, progs, tmp)
            rows = summarise(n, entries, args)
            all_rows.extend(rows)
        say("\n# load average at end %.2f %.2f %.2f" % os.getloadavg())
        say("# compute s, wall s (whole process), cpu/wall (CPU seconds of the process over its "
            "wall seconds: cores it really had): medians; G relax/s = V^3 / compute s, median "
            "and best run (apsp's own figure on its padded n in parentheses); x course, x scipy: "
            "their median compute s over this one's; % ceil: median G relax/s over the ceiling, "
            "the best probe run with the same thread count (SciPy: 1 thread)\n")
        print_rows(all_rows)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if mismatches or failures:
        loud("%d MISMATCH(ES), %d FAILURE(S): %s" % (len(mismatches), len(failures),
                                                    mismatches + failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
