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

    pytest_main.py test_sssp_device_johnson.py --apsp=APSP [--opt=graphs=N] [--opt=seed=S]
        [--opt=device=cpu|gpu]

Skips without an OpenCL device of that type or without NumPy and SciPy.
"""
import json
import os
import subprocess

from test_sssp_scipy import (NegativeCycleError, bad_trees, grid_pairs, np, power_law_pairs,
                             random_pairs, read_output, scipy_graph, shortest_path, tolerance,
                             weigh)

GRAPHS = 6  # --opt=graphs=N
MAKERS = {"random": random_pairs, "grid": grid_pairs, "power-law": power_law_pairs}
# (the rows' type, weigh()'s mode and kind)
TYPES = (("int32", "potentials", "int32"), ("int64", "potentials", "int64"),
         ("int64", "signed", "int64"), ("float64", "potentials", "float64"),
         ("float32", "potentials", "float64"))


def run(apsp, args, graph, out):
    r = subprocess.run([apsp, "-q", "--stats-json"] + args + [graph, out], capture_output=True,
                       text=True)
    stats = json.loads(r.stderr.strip().splitlines()[-1]) if r.returncode == 0 else None
    return r, stats


def check_one(apsp, device, work, check, name, v, edges, sources, dtype, what, pred=False):
    """One graph: the device's Johnson against SciPy's and the host threads' Johnson."""
    graph = os.path.join(work, name + ".txt")
    with open(graph, "w") as f:
        f.writelines("%d %d %r\n" % e for e in edges)
    spec = ["--vertices=%d" % v, "--sources=" + ",".join(map(str, sources)), "--dtype=" + dtype]
    dev, host, dev_pred = (os.path.join(work, name + k + ".npy") for k in ("d", "h", "dp"))
    more = ["--predecessors=" + dev_pred] if pred else []
    r, stats = run(apsp, spec + ["--backend=opencl", "-d", device, "--method=johnson"] + more,
                   graph, dev)
    try:
        want = shortest_path(scipy_graph(v, edges), method="J", indices=sources)
    except NegativeCycleError:
        check(r.returncode == 7 and "negative cycle" in r.stderr,
              "%s: a negative cycle: rc %d %s" % (what, r.returncode, r.stderr))
        return
    if not check(r.returncode == 0, "%s: rc %d: %s" % (what, r.returncode, r.stderr.strip())):
        return
    negative = any(w < 0 for _, _, w in edges)
    on_device = "potentials by bellman-ford on the device" if negative and isinstance(
        edges[0][2], int) else "potentials "
    check(stats["backend"] == "opencl" and stats["method"].startswith("johnson on ")
          and on_device in stats["method"],
          "%s: not on the device: %s %s" % (what, stats["backend"], stats["method"]))
    got = read_output(dev, "npy", len(sources), v)
    hr, _ = run(apsp, spec + ["--backend=cpu", "--method=johnson"], graph, host)
    check(hr.returncode == 0 and open(host, "rb").read() == open(dev, "rb").read(),
          "%s: the rows differ from the host threads' johnson's" % what)
    both = np.isinf(want) & np.isinf(got)
    if not check(np.array_equal(np.isinf(want), np.isinf(got)),
                 "%s: reached vertices differ from SciPy's" % what):
        return
    gap = np.abs(np.where(both, 0, got) - np.where(both, 0, want))
    allowed = tolerance("float64" if dtype.startswith("float") else "int", v, edges)
    if dtype == "float32":
        allowed = allowed + 2.0 ** -24 * np.abs(np.where(both, 0, want))
    check(not np.any(gap > allowed), "%s: %d cells past the bound of SciPy's (largest gap %g)"
          % (what, int(np.sum(gap > allowed)), float(np.max(gap))))
    if pred:
        bad = bad_trees(np.load(dev_pred), got, sources, scipy_graph(v, edges),
                        0 if dtype.startswith("int") else 1e-9 * float(np.nanmax(
                            np.where(np.isinf(got), 0, got), initial=1)))
        check(not bad, "%s: %d predecessor rows are no shortest-path tree" % (what, bad))


def test_graph(apsp_path, device, work, check, case, rng):
    v = rng.choice([rng.randint(2, 20), rng.randint(21, 150), 400])
    shape = rng.choice(list(MAKERS))
    pairs = MAKERS[shape](rng, v)
    sources = sorted(set(rng.randrange(v) for _ in range(rng.randint(1, 12))))
    what = "case %d: %s V=%d S=%d" % (case, shape, v, len(sources))
    for n, (dtype, mode, kind) in enumerate(TYPES):
        edges = weigh(rng, v, pairs, mode, kind)
        if edges:
            check_one(apsp_path, device, work, check, "g%d" % n, v, edges, sources, dtype,
                      "%s %s %s" % (what, dtype, mode))
    edges = weigh(rng, v, pairs, "positive", "int32")
    if edges:
        check_one(apsp_path, device, work, check, "pred", v, edges, sources, "int32",
                  what + " int32 predecessors", pred=True)
