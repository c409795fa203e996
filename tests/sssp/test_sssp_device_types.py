"""The OpenCL batched Bellman-Ford (cl/sssp.cl, src/opencl/sssp.c) for every row type and with
--predecessors, on PoCL's CPU device (-d cpu --method=bellman-ford --sources=...): --stats-json
must say it ran there (backend opencl, the type in `method`), and the rows must equal SciPy's
dijkstra / shortest_path and the host's:

- int64 rows (weights past int32's rule: 2^34, 2^40), positive and by potentials (negative
  weights, no negative cycle), and signed ones (negative cycles: exit 7 as the host's): equal to
  SciPy's exactly and to the pthread Bellman-Ford's bytes; again with the compare-and-swap loop
  forced (APSP_KERNEL_DIR holding cl/ with SSSP_FORCE_CAS defined in sssp.cl), since PoCL has
  cl_khr_int64_extended_atomics and would take atom_min;
- float64 rows of fractional weights: the pthread Dijkstra's bytes and SciPy's values (both sum
  each path left to right in double, as the device does: docs/usage.md);
- float32 rows (--dtype=float32): within the bound of docs/usage.md of SciPy's float64,
  |d - d_scipy| <= (V - 1) 2^-24 d_scipy (each of a path's at most V - 1 additions, and each
  weight's rounding to float32, within half an ulp); the largest relative difference is printed;
- --predecessors with int32, int64 and float64 rows: distances as above, every predecessor row a
  shortest-path tree of SciPy's distances; on fractional weights (no ties) the pthread
  Dijkstra's bytes; on a float32 graph whose sum absorbs an edge (no predecessor the device can
  pick) the host runs the batch and the rows still equal the host's.

    pytest_main.py test_sssp_device_types.py --apsp=APSP [--opt=graphs=N] [--opt=seed=S]
        [--opt=device=cpu|gpu]

With --opt=device=gpu the same on a GPU (int64 there takes atom_min where its driver has the
extension). Skips without an OpenCL device of that type or without NumPy and SciPy.
"""
import json
import os
import shutil
import subprocess
import tempfile

import pytest
from test_sssp_device import device_args
from test_sssp_scipy import (NegativeCycleError, bad_trees, grid_pairs, np, power_law_pairs,
                             random_pairs, read_output, scipy_graph, shortest_path, weigh)

GRAPHS = 6  # --opt=graphs=N
MAKERS = {"random": random_pairs, "grid": grid_pairs, "power-law": power_law_pairs}


def run(apsp, args, graph, out, env=None):
    r = subprocess.run([apsp, "-q", "--stats-json"] + args + [graph, out], capture_output=True,
                       text=True, env=env)
    stats = json.loads(r.stderr.strip().splitlines()[-1]) if r.returncode == 0 else None
    return r, stats


class Checker:
    def __init__(self, apsp, device, work, cas_dir, check):
        self.apsp, self.device, self.work, self.fail = apsp, device, work, check.fail
        self.cas_env = dict(os.environ, APSP_KERNEL_DIR=cas_dir)
        self.largest_f32 = 0.0
        self.case = 0

    def device_run(self, what, spec, graph, dtype, pred=None, env=None, on_device=True):
        out = os.path.join(self.work, "dev%d.npy" % self.case)
        more = ["--predecessors=" + pred] if pred else []
        r, stats = run(self.apsp, spec + ["--backend=opencl"] + device_args(self.device) + more,
                       graph, out, env)
        if r.returncode != 0:
            return r, None
        where = "%s distances%s" % (dtype, ", predecessors picked on the device" if pred else "")
        ran = stats["backend"] == "opencl" and where in stats["method"]
        if on_device and not ran:
            self.fail("%s: not on the device: %s %s" % (what, stats["backend"], stats["method"]))
        return r, out

    def host_run(self, spec, graph, method, pred=None):
        out = os.path.join(self.work, "host%d.npy" % self.case)
        more = ["--predecessors=" + pred] if pred else []
        r, _ = run(self.apsp, spec + ["--backend=cpu", "--method=" + method] + more, graph, out)
        return out if r.returncode == 0 else None

    def check(self, v, edges, sources, dtype, what, pred=False, cas=False):
        """One graph: the device's rows (and predecessors) against SciPy's and the host's."""
        self.case += 1
        graph = os.path.join(self.work, "g%d.txt" % self.case)
        with open(graph, "w") as f:
            f.writelines("%d %d %r\n" % e for e in edges)
        spec = ["--vertices=%d" % v, "--sources=" + ",".join(map(str, sources))]
        spec += ["--dtype=" + dtype]
        negative = any(w < 0 for _, _, w in edges)
        dev_pred = os.path.join(self.work, "dp%d.npy" % self.case) if pred else None
        r, dev = self.device_run(what, spec, graph, dtype, dev_pred, self.cas_env if cas else None)
        try:
            want = shortest_path(scipy_graph(v, edges), method="BF" if negative else "D",
                                 indices=sources)
        except NegativeCycleError:
            if r.returncode != 7 or "negative cycle" not in r.stderr:
                self.fail("%s: a negative cycle: rc %d %s" % (what, r.returncode, r.stderr))
            return
        if dev is None:
            self.fail("%s: rc %d: %s" % (what, r.returncode, r.stderr.strip()))
            return
        got = read_output(dev, "npy", len(sources), v)
        host_method = "bellman-ford" if negative else "dijkstra"
        host_pred = os.path.join(self.work, "hp%d.npy" % self.case) if pred else None
        host = self.host_run(spec, graph, host_method, host_pred)
        if dtype == "float32":
            both = np.isinf(want) & np.isinf(got)
            gap = np.abs(np.where(both, 0, got) - np.where(both, 0, want))
            rel = gap / np.where(want > 0, want, 1)
            self.largest_f32 = max(self.largest_f32, float(np.max(rel, initial=0)))
            if np.any(rel > max(v - 1, 1) * 2.0 ** -24):
                self.fail("%s: float32 rows past (V - 1) 2^-24 of SciPy's: %g" % (
                    what, float(np.max(rel))))
        else:
            if not np.array_equal(got, want):
                self.fail("%s: %d cells differ from SciPy's" % (what, int(np.sum(got != want))))
            if host is None or open(host, "rb").read() != open(dev, "rb").read():
                self.fail("%s: the rows differ from the pthread %s's" % (what, host_method))
        if pred:
            p = np.load(dev_pred)
            bad = bad_trees(p, got, sources, scipy_graph(v, edges),
                            0 if dtype.startswith("int") else 1e-9 * float(np.nanmax(
                                np.where(np.isinf(got), 0, got), initial=1)))
            if bad:
                self.fail("%s: %d predecessor rows are no shortest-path tree" % (what, bad))
            if dtype.startswith("float") and not np.array_equal(p, np.load(host_pred)):
                self.fail("%s: the predecessors differ from the pthread Dijkstra's" % what)


@pytest.fixture(scope="module")
def cas_dir(source_root):
    """cl/ with SSSP_FORCE_CAS defined in sssp.cl, for APSP_KERNEL_DIR."""
    kernels = os.path.join(source_root, "cl")
    with tempfile.TemporaryDirectory(prefix="apsp-test-kernels-") as scratch:
        cas = os.path.join(scratch, "cl")
        shutil.copytree(kernels, cas)
        with open(os.path.join(kernels, "sssp.cl")) as f:
            source = f.read()
        with open(os.path.join(cas, "sssp.cl"), "w") as f:
            f.write("#define SSSP_FORCE_CAS 1\n" + source)
        yield cas


@pytest.fixture
def checker(apsp_path, device, work, cas_dir, check):
    c = Checker(apsp_path, device, work, cas_dir, check)
    yield c
    print("largest float32 relative difference from SciPy %.3g" % c.largest_f32)


def test_graph(checker, case, rng):
    c = checker
    v = rng.choice([rng.randint(2, 20), rng.randint(21, 150), 400])
    shape = rng.choice(list(MAKERS))
    pairs = MAKERS[shape](rng, v)
    sources = sorted(set(rng.randrange(v) for _ in range(rng.randint(1, 12))))
    what = "%s V=%d S=%d" % (shape, v, len(sources))
    mode = ["positive", "potentials", "signed"][case % 3]
    wide = weigh(rng, v, pairs, mode, "int64")
    c.check(v, wide, sources, "int64", what + " int64 " + mode, cas=case % 2 == 1)
    real = weigh(rng, v, pairs, "positive", "float64")
    c.check(v, real, sources, "float64", what + " float64", pred=case % 2 == 0)
    c.check(v, real, sources, "float32", what + " float32")
    narrow = weigh(rng, v, pairs, "positive", "int32")
    c.check(v, narrow, sources, "int32", what + " int32 predecessors", pred=True)
    c.check(v, weigh(rng, v, pairs, "positive", "int64"), sources, "int64",
            what + " int64 predecessors", pred=True, cas=case % 2 == 0)


def test_absorbed(checker, work):
    """1 + 2^-30 rounds to 1 in float32: vertex 2 has no in-edge the device can pick."""
    c = checker
    absorbed = [(0, 1, 1.0), (1, 2, 2.0 ** -30), (0, 3, 0.5), (3, 2, 0.75)]
    c.case += 1
    graph = os.path.join(work, "absorbed.txt")
    with open(graph, "w") as f:
        f.writelines("%d %d %r\n" % e for e in absorbed)
    spec = ["--vertices=4", "--sources=0", "--dtype=float32"]
    pd, ph = os.path.join(work, "pd.npy"), os.path.join(work, "ph.npy")
    r, dev = c.device_run("absorbed", spec, graph, "float32", pd, on_device=False)
    host = c.host_run(spec, graph, "bellman-ford", ph)
    if dev is None or host is None or open(dev, "rb").read() != open(host, "rb").read() or \
            open(pd, "rb").read() != open(ph, "rb").read():
        c.fail("absorbed: the host's run of the batch differs: %s" % r.stderr.strip())
