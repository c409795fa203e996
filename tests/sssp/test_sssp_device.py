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

    pytest_main.py test_sssp_device.py --apsp=APSP [--opt=graphs=N] [--opt=seed=S]
        [--opt=device=cpu|gpu]

Skips without an OpenCL device of that type or without NumPy and SciPy.
"""
import json
import os
import random
import re
import subprocess
import warnings

import pytest
from harness import seed_of

from test_sssp_scipy import (INF, NegativeCycleError, grid_pairs, np, power_law_pairs,
                             random_pairs, scipy_graph, shortest_path, weigh)

GRAPHS = 40  # --opt=graphs=N


def device_args(device):
    """The arguments that run bellman-ford on an OpenCL device of the type."""
    return ["-d", device, "--method=bellman-ford"]


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


def check_graph(apsp, device, work, case, v, edges, sources, batch, what, check, method="BF",
                one_sweep=False):
    graph = os.path.join(work, "g%d.txt" % case)
    with open(graph, "w") as f:
        f.writelines("%d %d %d\n" % e for e in edges)
    spec = ["--vertices=%d" % v, "--sources=" + ",".join(map(str, sources))]
    memory = ["--device-memory=%d" % memory_for(v, len(edges), batch)] if batch else []
    outs = {name: os.path.join(work, "%s%d.bin" % (name, case)) for name in ("dev", "bf", "dij")}
    dev, stats = run(apsp, spec + device_args(device) + memory, graph, outs["dev"])
    host, _ = run(apsp, spec + ["--backend=cpu", "--method=bellman-ford"], graph, outs["bf"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = shortest_path(scipy_graph(v, edges), method=method, indices=sources)
    except NegativeCycleError:
        if dev.returncode != 7 or host.returncode != 7 or "negative cycle" not in dev.stderr:
            check.fail("%s: a negative cycle: device rc %d (%s), host rc %d" % (
                what, dev.returncode, dev.stderr.strip(), host.returncode))
        if os.path.exists(outs["dev"]):
            check.fail("%s: a negative cycle, yet the output was written" % what)
        return "cycle"
    if dev.returncode != 0 or host.returncode != 0:
        check.fail("%s: device rc %d %s, host rc %d %s" % (
            what, dev.returncode, dev.stderr.strip(), host.returncode, host.stderr.strip()))
        return None
    if not stats["method"].startswith("bellman-ford on "):
        check.fail("%s: the device did not run: %s" % (what, stats["method"]))
    got = open(outs["dev"], "rb").read()
    if got != open(outs["bf"], "rb").read():
        check.fail("%s: the device's rows differ from the pthread Bellman-Ford's" % what)
    if not any(w < 0 for _, _, w in edges):
        run(apsp, spec + ["--backend=cpu", "--method=dijkstra"], graph, outs["dij"])
        if got != open(outs["dij"], "rb").read():
            check.fail("%s: the device's rows differ from the pthread Dijkstra's" % what)
    expected = np.where(np.isinf(expected), INF, expected).astype(np.int64)
    rows = np.frombuffer(got, dtype="<i4").astype(np.int64).reshape(len(sources), v)
    if not np.array_equal(rows, expected.reshape(len(sources), v)):
        check.fail("%s: %d cells differ from SciPy's" % (what, int(np.sum(rows != expected))))
    sweeps = re.search(r"(\d+) sweeps", stats["choice"])
    if one_sweep and (not sweeps or int(sweeps.group(1)) != 1):
        check.fail("%s: the rounds lost a pair, a sweep found it: %s" % (
            what, stats["choice"]))
    batches = re.search(r"(\d+) batches", stats["choice"])
    if batch and batch < len(sources) and (not batches or int(batches.group(1)) < 2):
        check.fail("%s: one batch, where --device-memory holds %d sources: %s" % (
            what, batch, stats["choice"]))
    return "equal"


def test_graph(apsp_path, device, work, check, case, rng):
    makers = {"random": random_pairs, "grid": grid_pairs, "power-law": power_law_pairs}
    v = rng.choice([1, 2, rng.randint(3, 20), rng.randint(21, 150), 400])
    shape = rng.choice(list(makers))
    mode = rng.choice(["positive", "positive", "potentials", "signed"])
    edges = weigh(rng, v, makers[shape](rng, v), mode, "int32")
    sources = rng.choice([[rng.randrange(v)], list(range(v)),
                          [rng.randrange(v) for _ in range(rng.randint(1, 2 * v))]])
    batch = rng.choice([0, 1, max(1, len(sources) // 3)])
    what = "%s V=%d E=%d %s S=%d batch %s" % (shape, v, len(edges), mode, len(sources),
                                               batch or "by memory")
    print(check_graph(apsp_path, device, work, case, v, edges, sources, batch, what, check))


@pytest.mark.parametrize("mode", ["positive", "potentials"])
def test_hubs(apsp_path, device, work, check, mode, request):
    rng = random.Random("%d:hubs-%s" % (seed_of(request.config), mode))
    v = 3000  # out-degree 2999 against a stage of at most 4 x 256 pairs
    edges = weigh(rng, v, hub_pairs(rng, v), mode, "int32")
    sources = [0, 1] + [rng.randrange(v) for _ in range(62)]
    what = "hubs V=%d E=%d %s S=%d" % (v, len(edges), mode, len(sources))
    check_graph(apsp_path, device, work, 0, v, edges, sources, 0, what, check, "J",
                one_sweep=device == "cpu")
