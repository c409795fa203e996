#!/usr/bin/env python3
"""Distances from chosen sources on the 2-D grid road proxy (issue 27): apsp --sources against
SciPy's dijkstra(indices=...) in the same invocation, medians of --repeat runs, and the peak RSS
of the apsp run. Not a test: no thresholds (docs/performance.md, "Chosen sources").

    bench_sssp.py APSP [--side=1000] [--sources=1000] [--scipy-sources=N] [--repeat=3]
                  [--threads=N] [--method=dijkstra] [--work=DIR]

The grid has side x side vertices, each joined to its 4 neighbours both ways with weights 1 to
1000 at random (seed 1); the sources are spread evenly over the vertex ids. apsp writes its
S x V rows to /dev/null (the solve and the row writer run; no disk is filled). SciPy gets the
same sources in chunks of 50 (its S x V float64 result would not fit memory at S = 1000); with
--scipy-sources=N only the first N of them, its time scaled to S (said in the output).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

SYSTEM_PYTHON = "/usr/bin/python3"
try:
    import numpy as np
    import scipy.sparse
    from scipy.sparse.csgraph import dijkstra
except ImportError:
    if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(
            SYSTEM_PYTHON) and not os.environ.get("APSP_TEST_SCIPY_REEXEC"):
        os.environ["APSP_TEST_SCIPY_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.exit("bench_sssp.py needs NumPy and SciPy")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_graph import grid, spread_sources, write_hw3, write_sources  # noqa: E402


def run_apsp(args, graph, sources_file):
    """Seconds of the whole command, its -v lines and its peak RSS in KiB. The RSS is GNU time's
    (%M): this process's own rusage of a child would count the pages of the fork it started
    from, all of this script's arrays, before the exec."""
    gnu_time = os.path.exists("/usr/bin/time")
    cmd = (["/usr/bin/time", "-f", "%M"] if gnu_time else []) + [
        args.apsp, "-q", "-v", "--backend=cpu", "--method=" + args.method,
        "--sources=@" + sources_file, graph, "/dev/null"]
    if args.threads:
        cmd.insert(len(cmd) - 2, "--threads=%d" % args.threads)
    start = time.perf_counter()
    run = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit("apsp failed: %s" % run.stderr)
    lines = run.stderr.strip().splitlines()
    if not gnu_time:  # no GNU time here: no peak RSS (0)
        return seconds, "\n".join(lines), 0
    return seconds, "\n".join(lines[:-1]), int(lines[-1])


def run_scipy(csr, sources):
    start = time.perf_counter()
    for i in range(0, len(sources), 50):
        dijkstra(csr, directed=True, indices=sources[i:i + 50])
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("apsp")
    parser.add_argument("--side", type=int, default=1000)
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--scipy-sources", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--method", default="dijkstra")
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    v = args.side * args.side
    src, dst, w = grid(args.side)
    sources = spread_sources(v, args.sources)
    csr = scipy.sparse.csr_matrix((w.astype(np.float64), (src, dst)), shape=(v, v))
    scipy_count = args.scipy_sources or args.sources
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        graph = os.path.join(work, "grid.hw3")
        write_hw3(graph, v, src, dst, w)
        sources_file = os.path.join(work, "sources.txt")
        write_sources(sources_file, sources)
        apsp_times, scipy_times, rss = [], [], 0
        for _ in range(args.repeat):
            seconds, report, peak = run_apsp(args, graph, sources_file)
            apsp_times.append(seconds)
            rss = max(rss, peak)
            scipy_times.append(run_scipy(csr, sources[:scipy_count]) * args.sources / scipy_count)
    a, s = statistics.median(apsp_times), statistics.median(scipy_times)
    print("grid %dx%d: V = %d, E = %d, S = %d, apsp --method=%s, %d runs each" % (
        args.side, args.side, v, src.size, args.sources, args.method, args.repeat))
    print(report)
    print("apsp   median %.2f s (runs %s), peak RSS %.0f MiB" % (
        a, ", ".join("%.2f" % t for t in apsp_times), rss / 1024))
    print("scipy  median %.2f s (runs %s)%s" % (
        s, ", ".join("%.2f" % t for t in scipy_times),
        "" if scipy_count == args.sources else
        " for %d sources, scaled from %d" % (args.sources, scipy_count)))
    print("speed-up %.2fx" % (s / a))


if __name__ == "__main__":
    main()
