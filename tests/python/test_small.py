"""Small graphs (issue 42.1): V <= 128 is solved on the calling thread over its own V x V cells
(the pthread backend's small solve), dense and sparse input read by the extension, with the
results SciPy and a plain Floyd-Warshall give, and the blocked solve's bits."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import floyd_warshall as scipy_fw
from test_scipy import RTOL, adjacency, check_paths, same

import apsp

TYPES = [np.int32, np.int64, np.float32, np.float64]


def oracle(a):
    """Plain Floyd-Warshall in float64 over SciPy's reading of the graph (inf: no edge)."""
    d = a.copy()
    np.fill_diagonal(d, 0)
    for k in range(d.shape[0]):
        np.minimum(d, d[:, k, None] + d[None, k, :], out=d)
    return d


def random_graph(rng, n, dtype, negative):
    """n vertices, about 1.5 n edges of whole or fractional weights (negative ones by vertex
    potentials: no negative cycle), as a dense array: 0 is no edge."""
    w = np.zeros((n, n))
    edges = int(rng.integers(0, 3 * n + 1))
    rows, cols = rng.integers(0, n, edges), rng.integers(0, n, edges)
    weights = rng.integers(1, 30, edges).astype(np.float64)
    if np.dtype(dtype).kind == "f" and rng.random() < 0.5:
        weights += rng.random(edges)
    w[rows, cols] = weights
    if negative:
        p = rng.integers(0, 10, n).astype(np.float64)
        w = np.where(w != 0, w + p[:, None] - p[None, :], 0)
    return w.astype(dtype)


def as_input(w, form):
    if form == "dense":
        return w
    edges = sp.csr_matrix(w) if form == "csr" else sp.csc_matrix(w)
    return edges


@pytest.mark.parametrize("dtype", TYPES)
def test_many_small_graphs(device, dtype):
    """Hundreds of graphs of 0 to 200 vertices (edgeless and single-vertex ones included), dense,
    CSR and CSC, directed or not, some with negative weights: SciPy's distances and the plain
    oracle's; every fourth with predecessors that are shortest-path trees. On the pthread backend
    each graph of V <= 128 went through the small solve."""
    rng = np.random.default_rng(42 + TYPES.index(dtype))
    sizes = [1, 1, 2, 3, 127, 128, 129, 200] + [int(v) for v in rng.integers(1, 61, 112)]
    for case, n in enumerate(sizes):
        directed = case % 2 == 0
        w = random_graph(rng, n, dtype, negative=directed and case % 3 == 0)
        if case % 10 == 1:
            w[:] = 0  # edgeless
        graph = as_input(w, ("dense", "csr", "csc")[case % 3])
        want = scipy_fw(graph, directed=directed)
        a = adjacency(w, directed)
        if case % 4 == 0:
            got, pred = apsp.floyd_warshall(
                graph, directed=directed, return_predecessors=True, device=device
            )
            check_paths(a, got, pred, dtype)
        else:
            got = apsp.floyd_warshall(graph, directed=directed, device=device)
        same(got, want, dtype)
        same(got, oracle(a), dtype)
        if device == "host":  # the small solve up to 128 vertices, the blocked one past it
            padded = n if n <= 128 else 256
            assert apsp._default_solver(device).last_report["padded"] == padded


@pytest.mark.parametrize("form", ["dense", "csr", "csc"])
@pytest.mark.parametrize("directed", [True, False])
def test_small_graph_runs_on_the_calling_thread(form, directed):
    """Up to 128 vertices the pthread backend's small solve runs: one thread, over V x V cells
    (report padded = V), no 128-vertex tile; from 129 on the blocked solve over its padding."""
    rng = np.random.default_rng(7)
    solver = apsp.Solver(device="host")
    for n, padded in ((1, 1), (30, 30), (128, 128), (129, 256)):
        graph = as_input(random_graph(rng, n, np.float64, negative=False), form)
        solver.floyd_warshall(graph, directed=directed)
        report = solver.last_report
        assert report["padded"] == padded, (n, report)
        if n <= 128:
            assert report["threads"] == 1 and "calling thread" in report["device"], report


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_solve_has_the_blocked_bits(dtype):
    """Fractional float weights (the float kernels, sums rounded): the small solve gives the bits
    of the blocked solve at round depth 128, which an OpenCL CPU device runs (PoCL)."""
    if not any(d["type"] == "cpu" for d in apsp.devices()):
        pytest.skip("no OpenCL CPU device to run the blocked solve")
    rng = np.random.default_rng(3)
    host, blocked = apsp.Solver(device="host"), apsp.Solver(device="cpu", tile=128)
    for n in (2, 17, 64, 100, 128):
        w = (rng.random((n, n)) * 10).astype(dtype)
        w[rng.random((n, n)) < 0.7] = 0
        got, want = host.floyd_warshall(w), blocked.floyd_warshall(w)
        assert host.last_report["padded"] == n and blocked.last_report["padded"] == 128
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        assert np.allclose(got, scipy_fw(w), rtol=RTOL[dtype], atol=0)


def test_csr_indices_out_of_range_are_refused():
    """The extension reads a compressed graph's indices itself: a column past V - 1, or a row
    pointer that runs backwards, is refused (the usage status), never read out of bounds."""
    core = apsp.Solver(device="host")._open()
    out, data = np.empty((3, 3)), np.ones(3)
    cases = [
        (np.array([0, 1, 2, 3], dtype=np.int32), np.array([1, 2, 3], dtype=np.int32)),
        (np.array([0, 2, 1, 3], dtype=np.int64), np.array([1, 2, 0], dtype=np.int32)),
    ]
    for indptr, indices in cases:
        with pytest.raises(apsp._core.Error) as caught:
            core.solve_csr(indptr, indices, data, out, "float64")
        assert "out of range" in str(caught.value)
        assert caught.value.args[1] == apsp._core.USAGE
