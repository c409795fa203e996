"""Issue 39.2, the points fixed last: each checked against SciPy's own functions.

- a dense float weight with |w| <= 1e-8 (subnormals too) is no edge, as SciPy's null test
  (np.ma.masked_values, atol 1e-8) reads it, in every function and on every path of the
  package (the extension's dense copy, NumPy's reading with predecessors, the sparse methods);
- a pydata/sparse array's stored 0 is an edge to the sparse methods (SciPy >= 1.11 reads the
  array as its CSR form), while floyd_warshall reads it as no edge (as SciPy's does);
- Floyd-Warshall's predecessors where shortest paths tie are SciPy's, entry for entry.
"""

import numpy as np
import pytest
import scipy.sparse
from scipy.sparse import csgraph

import apsp

TINY = [1e-8, -1e-8, 9.99e-9, 5e-324, -1e-300, 2.2e-308, 1e-320]
ABOVE = [1.0000001e-8, -1.0000001e-8, 1.00001e-8, 1e-7]
SOURCES = ["dijkstra", "johnson", "bellman_ford", "shortest_path"]


def _tiny_graph(dtype, rng):
    """A 40-vertex graph of weights 1-5 with tiny and just-above weights scattered in."""
    w = rng.integers(1, 6, (40, 40)).astype(np.float64)
    w[rng.random((40, 40)) < 0.6] = 0
    cells = rng.choice(40 * 40, 2 * (len(TINY) + len(ABOVE)), replace=False)
    w.flat[cells] = (TINY + ABOVE) * 2
    return np.abs(w).astype(dtype) if dtype == np.float32 else np.abs(w)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("directed", [True, False])
def test_tiny_dense_weights_are_no_edge(device, dtype, directed):
    g = _tiny_graph(dtype, np.random.default_rng(7))
    want = csgraph.floyd_warshall(g, directed=directed)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    solver = apsp.Solver(device=device)
    np.testing.assert_allclose(solver.floyd_warshall(g, directed=directed), want, rtol=tol)
    got, pred = solver.floyd_warshall(g, directed=directed, return_predecessors=True)
    np.testing.assert_allclose(got, want, rtol=tol)
    for name in SOURCES:
        np.testing.assert_allclose(getattr(apsp, name)(g, directed=directed),
                                   getattr(csgraph, name)(g, directed=directed), rtol=1e-6,
                                   err_msg=name)


def test_tiny_negative_pair_is_no_cycle():
    """±1e-9 both ways: a negative cycle if they were edges, nothing to SciPy."""
    g = np.array([[0, 1e-9, 0], [-2e-9, 0, 2.0], [0, 0, 0]])
    want = csgraph.floyd_warshall(g)
    assert np.array_equal(apsp.floyd_warshall(g), want)
    assert np.array_equal(apsp.floyd_warshall(g, return_predecessors=True)[0], want)
    for name in ("johnson", "bellman_ford"):
        assert np.array_equal(getattr(apsp, name)(g), getattr(csgraph, name)(g))
    with pytest.raises(apsp.NegativeCycleError):  # just above the line they are edges
        apsp.floyd_warshall(g * 100)


def test_tiny_weights_edges_elsewhere():
    """The line is SciPy's dense null test only: a SciPy sparse matrix's 1e-9 is an edge, and a
    masked array's unmasked 1e-9 too (SciPy reads a masked array by its mask)."""
    g = np.array([[0, 1e-9, 0], [0, 0, 1e-9], [0, 0, 0]])
    sp = scipy.sparse.csr_matrix(g)
    assert np.array_equal(apsp.floyd_warshall(sp), csgraph.floyd_warshall(sp))
    assert apsp.floyd_warshall(sp)[0, 2] == 2e-9
    for name in SOURCES:
        assert np.array_equal(getattr(apsp, name)(sp), getattr(csgraph, name)(sp)), name
    masked = np.ma.masked_array(g, mask=np.zeros_like(g, dtype=bool))
    assert np.array_equal(apsp.floyd_warshall(masked), csgraph.floyd_warshall(masked))


@pytest.mark.parametrize("name", SOURCES)
def test_pydata_stored_zero_is_an_edge_to_the_sparse_methods(name):
    sparse = pytest.importorskip("sparse")
    rng = np.random.default_rng(3)
    n = 30
    row, col = rng.integers(0, n, 120), rng.integers(0, n, 120)
    keep = row != col
    row, col = row[keep], col[keep]
    data = rng.integers(0, 4, len(row)).astype(np.float64)  # a quarter of them stored zeros
    coo = sparse.COO(np.stack([row, col]), data, shape=(n, n))
    assert np.count_nonzero(coo.data == 0) > 0
    # SciPy >= 1.11 reads the array as coo.to_scipy_sparse() (stored zeros kept): that reading
    # is SciPy's oracle here, whichever SciPy is installed.
    theirs = getattr(csgraph, name)(coo.to_scipy_sparse().tocsr(), indices=[0, 5])
    ours = getattr(apsp, name)(coo, indices=[0, 5])
    np.testing.assert_allclose(ours, theirs)
    # floyd_warshall: as SciPy's, whose dense meaning of 0 holds for any graph not of
    # scipy.sparse (no edge).
    dense = coo.todense()
    np.testing.assert_allclose(apsp.floyd_warshall(coo), csgraph.floyd_warshall(dense))


def _tied_graph(seed, n=30, directed=True):
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 4, (n, n)).astype(np.float64)
    w[rng.random((n, n)) < 0.5] = 0
    return w if directed else np.triu(w)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float32])
def test_floyd_warshall_tied_predecessors_are_scipys(device, seed, directed, dtype):
    """Weights 1-3 on 30 vertices: most pairs have several shortest paths, and SciPy's
    Floyd-Warshall keeps the one it found first (an update on strict improvement, k in
    order). apsp's predecessors are the same, entry for entry."""
    g = _tied_graph(seed, directed=directed).astype(dtype)
    want_d, want_p = csgraph.floyd_warshall(g, directed=directed, return_predecessors=True)
    for solve in (apsp.Solver(device=device).floyd_warshall, apsp.floyd_warshall):
        d, p = solve(g, directed=directed, return_predecessors=True)
        assert np.array_equal(d, want_d)
        assert np.array_equal(p, want_p), np.argwhere(p != want_p)[:5]
    d, p = apsp.shortest_path(g, method="FW", directed=directed, return_predecessors=True)
    assert np.array_equal(p, want_p)


def test_floyd_warshall_tied_predecessors_zero_weights():
    """Zero-weight edges (a SciPy sparse matrix's explicit zeros) make ties of equal length
    through cycles of weight 0."""
    rng = np.random.default_rng(11)
    n = 25
    w = rng.integers(0, 3, (n, n)).astype(np.float64)
    w[rng.random((n, n)) < 0.7] = np.nan
    row, col = np.nonzero(~np.isnan(w))
    g = scipy.sparse.csr_matrix((w[row, col], (row, col)), shape=(n, n))
    want_d, want_p = csgraph.floyd_warshall(g, return_predecessors=True)
    d, p = apsp.floyd_warshall(g, return_predecessors=True)
    assert np.array_equal(d, want_d)
    assert np.array_equal(p, want_p), np.argwhere(p != want_p)[:5]
