#!/usr/bin/env python3
"""The OpenCL batched Bellman-Ford (src/opencl/sssp.c, cl/sssp.cl) on PoCL's CPU device, or with
--device=gpu on a GPU: apsp --sources --method=bellman-ford -d DEVICE against the pthread Bellman-Ford and Dijkstra of the same
sources, byte for byte, and against SciPy's shortest_path(indices=...), on random graphs
(repeated edges, unreachable vertices), 2-D grids and power-law graphs, with positive weights,
negative ones without negative cycles (vertex potentials) and signed ones (negative cycles
often: the same exit 7 as the host's), one source, every vertex, lists with repeats, and several
batches (a --device-memory that holds only a few sources' blocks). Beside the random graphs,
hub graphs: two vertices joined to every other both ways, whose out-degree is well above what a
work-group stages in local memory on a GPU (cl/sssp.cl, APPEND_LOCAL: 4 pairs per item, groups
of at most 256; CPU devices append one by one, src/opencl/sssp_setup.c: stages_appends), so that a
round's appends overflow the stage into the global lists, with many sources, positive weights
(the far lists overflow too) and negative ones. The rows hide a lost append (the closing sweep
relaxes every reached pair and lowers what the rounds missed), so on PoCL's CPU device the hub
graphs also ask for one sweep: its rounds lose nothing (its atomics are the CPU's ordered ones),
and a second sweep means an append went missing. A GPU's rounds may leave a pair for the sweep
(docs/performance.md, "Chosen sources"), so there only the rows are compared.

    test_sssp_device.py APSP [--graphs=N] [--seed=S] [--device=cpu|gpu]

Skips (exit 77) without an OpenCL device of that type or without NumPy and SciPy.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_sssp_scipy import (INF, grid_pairs, power_law_pairs, random_pairs,  # noqa: E402
                             scipy_graph, weigh)

import numpy as np  # noqa: E402  (test_sssp_scipy made sure of it)
from scipy.sparse.csgraph import NegativeCycleError, shortest_path  # noqa: E402

SKIP = 77
DEVICE = ["-d", "cpu", "--method=bellman-ford"]  # --device= replaces "cpu"


def has_device(apsp, kind):
    listing = subprocess.run([apsp, "--list-devices"], capture_output=True, text=True).stdout
    return re.search(r"\[%s\] \(opencl backend\)" % kind, listing) is not None


def device_args(graphs):
    """The device tests' arguments: APSP, --graphs (default `graphs`), --seed (an int, drawn for
    "time"), --device; None, said on stdout, without an OpenCL device of that type."""
    parser = argparse.ArgumentParser()
    parser.add_argument("apsp")
    parser.add_argument("--graphs", type=int, default=graphs)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    args = parser.parse_args()
    if not has_device(args.apsp, args.device):
        print("no OpenCL %s device: skipped" % args.device)
        return None
    args.seed = random.randrange(1 << 30) if args.seed == "time" else int(args.seed)
    return args


def run(apsp, args, graph, out):
    r = subprocess.run([apsp, "-q", "--stats-json"] + args + [graph, out], capture_output=True,
                       text=True)
    stats = None
    if r.returncode == 0:
        stats = json.loads(r.stderr.strip().splitlines()[-1])
    return r, stats


def memory_for(v, edge_count, batch):
    """A --device-memory whose share (0.9 of it) holds the graph and `batch` sources' blocks."""
    graph = 4 * (v + 1) + 8 * edge_count + 64
    per_source = 20 * v + (v + 31) // 32 * 4 + 4  # src/opencl/sssp.c: bytes_per_source
    return int((graph + batch * per_source) / 0.9) + 1


def hub_pairs(rng, v):
    """Vertices 0 and 1 joined to every other vertex both ways (out-degree v - 1), the others on
    a ring, so that paths run both through the hubs and around them."""
    pairs = [(h, u) for h in (0, 1) for u in range(v) if u != h]
    pairs += [(u, h) for h in (0, 1) for u in range(2, v)]
    return pairs + [(u, u + 1) for u in range(2, v - 1)]


def check(apsp, work, case, v, edges, sources, batch, what, failures, method="BF",
          one_sweep=False):
    graph = os.path.join(work, "g%d.txt" % case)
    with open(graph, "w") as f:
        f.writelines("%d %d %d\n" % e for e in edges)
    spec = ["--vertices=%d" % v, "--sources=" + ",".join(map(str, sources))]
    memory = ["--device-memory=%d" % memory_for(v, len(edges), batch)] if batch else []
    outs = {name: os.path.join(work, "%s%d.bin" % (name, case)) for name in ("dev", "bf", "dij")}
    dev, stats = run(apsp, spec + DEVICE + memory, graph, outs["dev"])
    host, _ = run(apsp, spec + ["--backend=cpu", "--method=bellman-ford"], graph, outs["bf"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = shortest_path(scipy_graph(v, edges), method=method, indices=sources)
    except NegativeCycleError:
        if dev.returncode != 7 or host.returncode != 7 or "negative cycle" not in dev.stderr:
            failures.append("%s: a negative cycle: device rc %d (%s), host rc %d" % (
                what, dev.returncode, dev.stderr.strip(), host.returncode))
        if os.path.exists(outs["dev"]):
            failures.append("%s: a negative cycle, yet the output was written" % what)
        return "cycle"
    if dev.returncode != 0 or host.returncode != 0:
        failures.append("%s: device rc %d %s, host rc %d %s" % (
            what, dev.returncode, dev.stderr.strip(), host.returncode, host.stderr.strip()))
        return None
    if not stats["method"].startswith("bellman-ford on "):
        failures.append("%s: the device did not run: %s" % (what, stats["method"]))
    got = open(outs["dev"], "rb").read()
    if got != open(outs["bf"], "rb").read():
        failures.append("%s: the device's rows differ from the pthread Bellman-Ford's" % what)
    if not any(w < 0 for _, _, w in edges):
        run(apsp, spec + ["--backend=cpu", "--method=dijkstra"], graph, outs["dij"])
        if got != open(outs["dij"], "rb").read():
            failures.append("%s: the device's rows differ from the pthread Dijkstra's" % what)
    expected = np.where(np.isinf(expected), INF, expected).astype(np.int64)
    rows = np.frombuffer(got, dtype="<i4").astype(np.int64).reshape(len(sources), v)
    if not np.array_equal(rows, expected.reshape(len(sources), v)):
        failures.append("%s: %d cells differ from SciPy's" % (what, int(np.sum(rows != expected))))
    sweeps = re.search(r"(\d+) sweeps", stats["choice"])
    if one_sweep and (not sweeps or int(sweeps.group(1)) != 1):
        failures.append("%s: the rounds lost a pair, a sweep found it: %s" % (
            what, stats["choice"]))
    batches = re.search(r"(\d+) batches", stats["choice"])
    if batch and batch < len(sources) and (not batches or int(batches.group(1)) < 2):
        failures.append("%s: one batch, where --device-memory holds %d sources: %s" % (
            what, batch, stats["choice"]))
    return "equal"


def main():
    args = device_args(40)
    if args is None:
        return SKIP
    DEVICE[1] = args.device
    seed = args.seed
    rng = random.Random(seed)
    failures, outcomes = [], {}
    makers = {"random": random_pairs, "grid": grid_pairs, "power-law": power_law_pairs}
    with tempfile.TemporaryDirectory() as work:
        for case in range(args.graphs):
            v = rng.choice([1, 2, rng.randint(3, 20), rng.randint(21, 150), 400])
            shape = rng.choice(list(makers))
            mode = rng.choice(["positive", "positive", "potentials", "signed"])
            edges = weigh(rng, v, makers[shape](rng, v), mode, "int32")
            sources = rng.choice([[rng.randrange(v)], list(range(v)),
                                  [rng.randrange(v) for _ in range(rng.randint(1, 2 * v))]])
            batch = rng.choice([0, 1, max(1, len(sources) // 3)])
            what = "case %d (seed %d): %s V=%d E=%d %s S=%d batch %s" % (
                case, seed, shape, v, len(edges), mode, len(sources), batch or "by memory")
            outcome = check(args.apsp, work, case, v, edges, sources, batch, what, failures)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        for case, mode in enumerate(["positive", "potentials"], args.graphs):
            v = 3000  # out-degree 2999 against a stage of at most 4 x 256 pairs
            edges = weigh(rng, v, hub_pairs(rng, v), mode, "int32")
            sources = [0, 1] + [rng.randrange(v) for _ in range(62)]
            what = "case %d (seed %d): hubs V=%d E=%d %s S=%d" % (case, seed, v, len(edges),
                                                                  mode, len(sources))
            outcome = check(args.apsp, work, case, v, edges, sources, 0, what, failures, "J",
                            one_sweep=args.device == "cpu")
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    for f in failures:
        print("FAIL", f)
    print("%d graphs and 2 hub graphs (seed %d): %s; %d failures" % (
        args.graphs, seed, outcomes, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
