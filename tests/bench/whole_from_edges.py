#!/usr/bin/env python3
"""The whole-number decision of a float graph read from a file (docs/performance.md, "Whole-number
floats decided from the edges"): `whole_s` beside `compute_s` from --stats-json, for two apsp
builds interleaved, medians of several runs; the outputs compared byte for byte.

    whole_from_edges.py OLD_APSP NEW_APSP [--vertices=3000] [--runs=5] [--work=/dev/shm]

The graph: V vertices, 20 V random arcs with whole weights 0-1000, as an edge list (fixed seed).
No thresholds: it prints the figures."""
import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile

FIGURES = ("whole_s", "compute_s", "other_s", "write_s", "total_s")


def write_graph(path, v, seed=2):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(20 * v):
            f.write("%d %d %d\n" % (rng.randrange(v), rng.randrange(v), rng.randint(0, 1000)))


def run(apsp, dtype, graph, out):
    p = subprocess.run([apsp, "--backend=cpu", "--dtype=" + dtype, graph, out, "--stats-json"],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stderr.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--vertices", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default="/dev/shm")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.work) as work:
        graph = os.path.join(work, "g.txt")
        write_graph(graph, a.vertices)
        got = {}
        for _ in range(a.runs):
            for dtype in ("float64", "float32"):
                for name, apsp in (("old", a.old), ("new", a.new)):
                    out = os.path.join(work, "%s-%s.npy" % (name, dtype))
                    got.setdefault((name, dtype), []).append(run(apsp, dtype, graph, out))
        for dtype in ("float64", "float32"):
            with open(os.path.join(work, "old-%s.npy" % dtype), "rb") as f_old, \
                    open(os.path.join(work, "new-%s.npy" % dtype), "rb") as f_new:
                same = f_old.read() == f_new.read()
            for name in ("old", "new"):
                runs = got[(name, dtype)]
                med = {k: statistics.median(r[k] for r in runs) for k in FIGURES}
                print("%s %s: %s; whole/compute %.3f %%; outputs %s" % (
                    name, dtype, " ".join("%s %.4f" % (k, med[k]) for k in FIGURES),
                    100 * med["whole_s"] / med["compute_s"], "identical" if same else "DIFFER"))


if __name__ == "__main__":
    main()
