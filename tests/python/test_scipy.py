"""apsp.floyd_warshall against SciPy's floyd_warshall and dijkstra on random graphs: dense and
sparse input, directed and undirected, unweighted, negative weights and cycles, every type;
exact for integers, within apsp.PREDECESSOR_TOLERANCE's bounds for floats."""

import inspect

import numpy as np
import pytest
import scipy
import scipy.sparse as sp
from conftest import potentials, random_weights
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycleError
from scipy.sparse.csgraph import dijkstra
from scipy.sparse.csgraph import floyd_warshall as scipy_fw

import apsp

# How far a float result may be from SciPy's float64 one, relative to max(1, |d|): float64
# sums associated in another order; float32 weights summed in float32.
RTOL = {np.float32: 1e-5, np.float64: 1e-12}
TYPES = [np.int32, np.int64, np.float32, np.float64]


def same(got, want, dtype):
    """Exact for integers; for floats the same unreachable pairs and the rest within RTOL."""
    want = want.astype(np.float64)
    assert got.shape == want.shape
    if np.dtype(dtype).kind != "f":
        assert np.array_equal(got, want)
        return
    g = got.astype(np.float64)
    assert np.array_equal(np.isinf(g), np.isinf(want))
    finite = np.isfinite(want)
    err = np.abs(g[finite] - want[finite]) / np.maximum(1, np.abs(want[finite]))
    assert err.size == 0 or err.max() <= RTOL[dtype]


def output_type(dtype):
    return np.float32 if dtype == np.float32 else np.float64


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("unweighted", [False, True])
def test_dense_random(device, dtype, directed, unweighted):
    rng = np.random.default_rng([len(device), TYPES.index(dtype), directed, unweighted])
    for n, density in [(1, 1), (2, 0.5), (37, 0.1), (130, 0.05), (200, 0.3)]:
        w = random_weights(rng, n, density, 1, 100, dtype)
        got = apsp.floyd_warshall(w, directed=directed, unweighted=unweighted, device=device)
        assert got.dtype == output_type(dtype)
        same(got, scipy_fw(w, directed=directed, unweighted=unweighted), dtype)
        # An independent algorithm: Dijkstra on the non-negative graph.
        same(got, dijkstra(w, directed=directed, unweighted=unweighted), dtype)


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("directed", [True, False])
def test_sparse_random(device, dtype, directed):
    rng = np.random.default_rng(7 + directed)
    for n, edges in [(3, 4), (60, 200), (150, 2000)]:
        row, col = rng.integers(0, n, edges), rng.integers(0, n, edges)
        weight = rng.integers(0, 50, edges).astype(dtype)  # explicit zeros are edges
        for fmt in (sp.csr_matrix, sp.csc_matrix, sp.csr_array):
            graph = fmt(sp.coo_matrix((weight, (row, col)), shape=(n, n)).tocsr())
            got = apsp.floyd_warshall(graph, directed=directed, device=device)
            same(got, scipy_fw(graph, directed=directed), dtype)
        graph = sp.lil_matrix(graph)
        same(apsp.floyd_warshall(graph, device=device), scipy_fw(graph), dtype)


def test_sparse_meaning(device):
    """Explicit zeros are edges, inf entries none, repeated entries keep the least, self-loops
    (even negative) are ignored; dense zeros, inf and nan are no edges."""
    inf, nan = np.inf, np.nan
    # Row 0: (0,1) = 0, (0,2) = 3; row 1: (1,3) twice, 5 and 2; row 2: (2,0) = inf and a
    # self-loop of -1; row 3: (3,0) = 4.
    data = np.array([0.0, 3.0, 5.0, 2.0, inf, -1.0, 4.0])
    indices = np.array([1, 2, 3, 3, 0, 2, 0])
    indptr = np.array([0, 2, 4, 6, 7])
    graph = sp.csr_matrix((data, indices, indptr), shape=(4, 4))
    assert not graph.has_canonical_format
    same(apsp.floyd_warshall(graph, device=device), scipy_fw(graph), np.float64)
    dense = np.array([[0, 0, 5, inf], [nan, 0, 1, 0], [inf, 2, -3, 0], [1, 0, 0, 0.0]])
    same(apsp.floyd_warshall(dense, device=device), scipy_fw(dense), np.float64)
    # COO, which SciPy refuses: repeated entries keep the least as in CSR.
    coo = sp.coo_matrix(([7, 2, 9], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    assert apsp.floyd_warshall(coo, device=device).tolist() == [[0, 2], [9, 0]]


@pytest.mark.parametrize("dtype", TYPES)
def test_negative_weights(device, dtype):
    rng = np.random.default_rng(3)
    for n in (20, 150):
        w = potentials(rng, random_weights(rng, n, 0.1, 1, 60, dtype), 40)
        assert (w < 0).any()
        same(apsp.floyd_warshall(w, device=device), scipy_fw(w), dtype)


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_cycle(device, dtype, sparse):
    rng = np.random.default_rng(5)
    w = random_weights(rng, 90, 0.05, 1, 30, dtype)
    w[40, 41], w[41, 60], w[60, 40] = 5, -3, -4
    graph = sp.csr_matrix(w) if sparse else w
    with pytest.raises(ScipyNegativeCycleError):
        scipy_fw(graph)
    with pytest.raises(apsp.NegativeCycleError) as caught:
        apsp.floyd_warshall(graph, device=device)
    assert isinstance(caught.value, ScipyNegativeCycleError)
    # Undirected, one negative edge is a negative cycle (there and back).
    w = np.abs(w)
    w[3, 4] = -1
    with pytest.raises(apsp.NegativeCycleError):
        apsp.floyd_warshall(w, directed=False, device=device)
    scipy_fw(np.abs(w), directed=False)  # and without it, none


def test_integer_types(device):
    """Integer input: exact in int32, or int64 when a distance could pass 2^30; float64 out
    with inf, as SciPy; dtype= keeps integers with apsp's markers."""
    rng = np.random.default_rng(11)
    w = random_weights(rng, 80, 0.05, 1, 1000, np.int64)
    got = apsp.floyd_warshall(w, device=device)
    assert got.dtype == np.float64 and np.isinf(got).any()
    same(got, scipy_fw(w), np.int64)
    exact = apsp.floyd_warshall(w, device=device, dtype=np.int32)
    assert exact.dtype == np.int32
    assert np.array_equal(exact == apsp.INF32, np.isinf(got))
    assert np.array_equal(exact[exact != apsp.INF32], got[np.isfinite(got)])
    big = w * 2**33  # distances past 2^30, exact in float64 below 2^53
    got = apsp.floyd_warshall(big, device=device)
    same(got, scipy_fw(big), np.int64)
    as64 = apsp.floyd_warshall(big, device=device, dtype=np.int64)
    assert as64.dtype == np.int64 and (as64 == apsp.INF64).any()
    with pytest.raises(ValueError, match="not integers"):
        apsp.floyd_warshall(np.array([[0, 1.5], [0, 0]]), dtype=np.int32)


def test_pydata_sparse(device):
    """A pydata/sparse array (sparse.COO, sparse.GCXS), as SciPy >= 1.11's floyd_warshall reads
    it: its stored entries, where a stored 0, inf or nan is no edge, so the distances of its
    dense form; a fill value of inf too where pydata/sparse takes one (0.15.4 on), any other
    than 0, inf and nan refused."""
    sparse = pytest.importorskip("sparse")
    rng = np.random.default_rng(19)
    n = 70
    cells = rng.choice(n * n, 600, replace=False)
    coords = np.stack([cells // n, cells % n])
    data = rng.integers(0, 30, cells.size).astype(np.float64)  # stored zeros among them
    data[:20] = np.inf
    takes_pydata = tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 11)
    for fill in (0.0, np.inf):
        graph = sparse.COO(coords, data, shape=(n, n), fill_value=fill)
        if fill != 0 and "accept_fv" not in inspect.signature(graph.to_scipy_sparse).parameters:
            with pytest.raises(ValueError):  # pydata/sparse < 0.15.4: SciPy's error too
                apsp.floyd_warshall(graph, device=device)
            continue
        dense = graph.todense()
        for directed in (True, False):
            want = scipy_fw(dense, directed=directed)
            for form in (graph, sparse.GCXS(graph)):
                got = apsp.floyd_warshall(form, directed=directed, device=device)
                same(got, want, np.float64)
                if takes_pydata:
                    same(got, scipy_fw(form, directed=directed), np.float64)
    with pytest.raises(ValueError):
        apsp.floyd_warshall(sparse.COO(coords, data, shape=(n, n), fill_value=5.0))


def overwrite_inputs():
    """Dense inputs of every kind (name: a function making a fresh one), with unreachable pairs
    (nothing enters vertex 3)."""
    w = random_weights(np.random.default_rng(2), 40, 0.15, 1, 9, np.int64).astype(np.float64)
    w[:, 3] = 0
    return {
        "float64": lambda: w.copy(),
        "float32": lambda: w.astype(np.float32),
        "int32": lambda: w.astype(np.int32),
        "int64": lambda: w.astype(np.int64),
        "uint8": lambda: w.astype(np.uint8),
        "bool": lambda: w != 0,
        "masked": lambda: np.ma.masked_array(w.copy(), mask=w > 6),
    }


@pytest.mark.parametrize("kind", list(overwrite_inputs()))
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("return_predecessors", [False, True])
def test_overwrite(device, kind, directed, return_predecessors):
    """overwrite=True writes what SciPy's writes, where SciPy's writes: the distances (inf where
    there is no path) into a C-ordered float64 input, a masked one's data included, and nothing
    into any other type."""
    make = overwrite_inputs()[kind]
    ours, theirs = make(), make()
    kwargs = dict(directed=directed, return_predecessors=return_predecessors, overwrite=True)
    want = scipy_fw(theirs, **kwargs)
    got = apsp.floyd_warshall(ours, device=device, **kwargs)
    if return_predecessors:
        got, want = got[0], want[0]
    same(got, want, np.float32 if kind == "float32" else np.float64)
    assert np.array_equal(np.ma.getdata(ours), np.ma.getdata(theirs))  # small whole sums: exact
    assert np.shares_memory(got, ours) == np.shares_memory(want, theirs)
    assert np.shares_memory(got, ours) == (kind in ("float64", "masked"))


def test_predecessors(device):
    """Predecessor chains lead back to the source along edges of the graph, and their weights
    add up to the distance."""
    rng = np.random.default_rng(13)
    for dtype in TYPES:
        for directed in (True, False):
            w = potentials(rng, random_weights(rng, 70, 0.08, 1, 40, dtype), 20)
            if not directed:
                w = np.abs(w)
            try:
                dist, pred = apsp.floyd_warshall(
                    w, directed=directed, return_predecessors=True, device=device
                )
            except apsp.Error as error:
                if "apsp_predecessors_csr" in str(error):
                    pytest.skip(str(error))
                raise
            same(dist, scipy_fw(w, directed=directed), dtype)
            check_paths(adjacency(w, directed), dist, pred, dtype)


def adjacency(w, directed):
    """The edge weights as SciPy reads a dense matrix (inf: no edge); undirected, the least of
    both ways."""
    a = np.where(w != 0, w.astype(np.float64), np.inf)
    return a if directed else np.minimum(a, a.T)


def check_paths(a, dist, pred, dtype):
    n = a.shape[0]
    assert pred.dtype == np.int32 and pred.shape == (n, n)
    for i in range(n):
        for j in range(n):
            if i == j or not np.isfinite(dist[i, j]):
                assert pred[i, j] == -9999
                continue
            total, v, hops = 0.0, j, 0
            while v != i:
                u = pred[i, v]
                assert 0 <= u < n and np.isfinite(a[u, v]), f"{i}->{j}: no edge {u}->{v}"
                total += a[u, v]
                v, hops = u, hops + 1
                assert hops <= n
            tol = 0 if np.dtype(dtype).kind != "f" else RTOL[dtype] * max(1, abs(dist[i, j]))
            assert abs(total - dist[i, j]) <= tol * 4 + 1e-9 * (tol > 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_weights_take_the_integer_kernels(device, dtype):
    """A float array of whole weights (negative ones by potentials) runs the int32 kernels, as
    the report says: the bits of float_kernels=True, and SciPy's numbers."""
    rng = np.random.default_rng(26)
    n = 300
    w = potentials(rng, random_weights(rng, n, 0.05, 1, 100, np.int64), 50).astype(dtype)
    want = scipy_fw(w.astype(np.float64))
    with apsp.Solver(device=device) as whole, apsp.Solver(device=device, float_kernels=True) as fp:
        got = whole.floyd_warshall(w)
        reference = fp.floyd_warshall(w)
        assert whole.last_report["kernels"] == "int32"
        assert "whole weights: int32 kernels" in whole.last_report["kernels_why"]
        assert fp.last_report["kernels"] == np.dtype(dtype).name
    assert got.dtype == dtype and got.tobytes() == reference.tobytes()
    assert np.array_equal(got, want)


def test_a_fraction_takes_the_float_path(device):
    rng = np.random.default_rng(27)
    w = random_weights(rng, 200, 0.05, 1, 100, np.int64).astype(np.float64)
    w[3, 7] = 0.5
    with apsp.Solver(device=device) as solver:
        got = solver.floyd_warshall(w)
        assert solver.last_report["kernels"] == "float64"
        assert "weight 0.5 at (3, 7) is not whole" in solver.last_report["kernels_why"]
    same(got, scipy_fw(w), np.float64)
