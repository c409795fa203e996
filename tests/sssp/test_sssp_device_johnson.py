#!/usr/bin/env python3
"""Johnson on an OpenCL device (src/sssp/on_device_johnson.c) on PoCL's CPU device
(--backend=opencl -d cpu --method=johnson --sources=...): the potentials by the device's
Bellman-Ford from a virtual vertex (integer weights; real ones on the host), the batched method
over the reweighted edges, the rows' reweighting undone. --stats-json must say it ran there
(backend opencl, `method` "johnson on DEVICE: potentials ..."), and the rows must equal SciPy's
shortest_path(method="J") and the host threads' Johnson:

- int32 and int64 rows of weights by potentials (negative, no negative cycle): SciPy's exactly,
  the host's bytes, the potentials computed on the device;
- signed int64 weights (negative cycles often): exit 7 and the host's message where SciPy finds
  a cycle, else as above;
- float64 rows of fractional weights by potentials: the host's Johnson's bytes (the same
  reweighted edges, summed left to right in double, the same undoing) and within
  tests/sssp/test_sssp_scipy.py's tolerance of SciPy's; float32 rows (--dtype=float32): the
  host's bytes too (float64 sums rounded once) and within that tolerance plus 2^-24 |d|;
- weights none negative with --predecessors (h = 0): the predecessors picked on the device, each
  row a shortest-path tree of SciPy's distances.

    test_sssp_device_johnson.py APSP [--graphs=N] [--seed=S] [--device=cpu|gpu]

Skips (exit 77) without an OpenCL device of that type or without NumPy and SciPy.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_sssp_device import device_args  # noqa: E402
from test_sssp_scipy import (bad_trees, grid_pairs, power_law_pairs, random_pairs,  # noqa: E402
                             read_output, scipy_graph, tolerance, weigh)

import numpy as np  # noqa: E402  (test_sssp_scipy made sure of it)
from scipy.sparse.csgraph import NegativeCycleError, shortest_path  # noqa: E402

SKIP = 77
DEVICE = ["--backend=opencl", "-d", "cpu", "--method=johnson"]
MAKERS = {"random": random_pairs, "grid": grid_pairs, "power-law": power_law_pairs}


def run(apsp, args, graph, out):
    r = subprocess.run([apsp, "-q", "--stats-json"] + args + [graph, out], capture_output=True,
                       text=True)
    stats = json.loads(r.stderr.strip().splitlines()[-1]) if r.returncode == 0 else None
    return r, stats


class Checker:
    def __init__(self, apsp, work):
        self.apsp, self.work, self.failures, self.case = apsp, work, [], 0

    def fail(self, what):
        self.failures.append(what)

    def check(self, v, edges, sources, dtype, what, pred=False):
        """One graph: the device's Johnson against SciPy's and the host threads' Johnson."""
        self.case += 1
        graph = os.path.join(self.work, "g%d.txt" % self.case)
        with open(graph, "w") as f:
            f.writelines("%d %d %r\n" % e for e in edges)
        spec = ["--vertices=%d" % v, "--sources=" + ",".join(map(str, sources)),
                "--dtype=" + dtype]
        dev, host = (os.path.join(self.work, "%s%d.npy" % (k, self.case)) for k in "dh")
        dev_pred = os.path.join(self.work, "dp%d.npy" % self.case)
        more = ["--predecessors=" + dev_pred] if pred else []
        r, stats = run(self.apsp, spec + DEVICE + more, graph, dev)
        try:
            want = shortest_path(scipy_graph(v, edges), method="J", indices=sources)
        except NegativeCycleError:
            if r.returncode != 7 or "negative cycle" not in r.stderr:
                self.fail("%s: a negative cycle: rc %d %s" % (what, r.returncode, r.stderr))
            return
        if r.returncode != 0:
            self.fail("%s: rc %d: %s" % (what, r.returncode, r.stderr.strip()))
            return
        negative = any(w < 0 for _, _, w in edges)
        on_device = "potentials by bellman-ford on the device" if negative and isinstance(
            edges[0][2], int) else "potentials "
        if stats["backend"] != "opencl" or not stats["method"].startswith("johnson on ") or \
                on_device not in stats["method"]:
            self.fail("%s: not on the device: %s %s" % (what, stats["backend"], stats["method"]))
        got = read_output(dev, "npy", len(sources), v)
        hr, _ = run(self.apsp, spec + ["--backend=cpu", "--method=johnson"], graph, host)
        if hr.returncode != 0 or open(host, "rb").read() != open(dev, "rb").read():
            self.fail("%s: the rows differ from the host threads' johnson's" % what)
        both = np.isinf(want) & np.isinf(got)
        if not np.array_equal(np.isinf(want), np.isinf(got)):
            self.fail("%s: reached vertices differ from SciPy's" % what)
            return
        gap = np.abs(np.where(both, 0, got) - np.where(both, 0, want))
        allowed = tolerance("float64" if dtype.startswith("float") else "int", v, edges)
        if dtype == "float32":
            allowed = allowed + 2.0 ** -24 * np.abs(np.where(both, 0, want))
        if np.any(gap > allowed):
            self.fail("%s: %d cells past the bound of SciPy's (largest gap %g)" % (
                what, int(np.sum(gap > allowed)), float(np.max(gap))))
        if pred:
            bad = bad_trees(np.load(dev_pred), got, sources, scipy_graph(v, edges),
                            0 if dtype.startswith("int") else 1e-9 * float(np.nanmax(
                                np.where(np.isinf(got), 0, got), initial=1)))
            if bad:
                self.fail("%s: %d predecessor rows are no shortest-path tree" % (what, bad))


def main():
    args = device_args(6)
    if args is None:
        return SKIP
    DEVICE[2] = args.device
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as work:
        c = Checker(args.apsp, work)
        for case in range(args.graphs):
            v = rng.choice([rng.randint(2, 20), rng.randint(21, 150), 400])
            shape = rng.choice(list(MAKERS))
            pairs = MAKERS[shape](rng, v)
            sources = sorted(set(rng.randrange(v) for _ in range(rng.randint(1, 12))))
            what = "case %d (seed %d): %s V=%d S=%d" % (case, args.seed, shape, v, len(sources))
            for dtype, mode, kind in (("int32", "potentials", "int32"),
                                      ("int64", "potentials", "int64"),
                                      ("int64", "signed", "int64"),
                                      ("float64", "potentials", "float64"),
                                      ("float32", "potentials", "float64")):
                edges = weigh(rng, v, pairs, mode, kind)
                if edges:
                    c.check(v, edges, sources, dtype, "%s %s %s" % (what, dtype, mode))
            edges = weigh(rng, v, pairs, "positive", "int32")
            if edges:
                c.check(v, edges, sources, "int32", what + " int32 predecessors", pred=True)
    for f in c.failures:
        print("FAIL", f)
    print("%d graphs (seed %d): %d failures" % (args.graphs, args.seed, len(c.failures)))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
