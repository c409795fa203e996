"""apsp.floyd_warshall against SciPy's floyd_warshall, which reads every integer type as float64
and sums in float64, at the limits of the integer types: each type's extremes (bool, int8 to
int64, uint8 to uint64), the integer kernels' reach (sums past 2^53, where float64 rounds), and
a requested type that cannot hold a weight."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycleError
from scipy.sparse.csgraph import floyd_warshall as scipy_fw
from test_scipy import check_paths, same

import apsp

INTEGER_TYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64,
                 np.uint8, np.uint16, np.uint32, np.uint64]

# Where float64 stops holding every whole number, and where two such weights add up past it.
REACH = [2**51, 2**51 + 1, 2**52, 2**53 - 1, 2**53 + 1, 2**62]


def extremes(dtype):
    """The type's least and greatest values, their neighbours, small ones and (64-bit types)
    the values around float64's whole numbers."""
    if dtype == np.bool_:
        return [False, True]
    info = np.iinfo(dtype)
    wanted = [info.min, info.min + 1, -2, -1, 1, 2, 3, info.max // 2, info.max - 1, info.max]
    if info.bits == 64:
        wanted += REACH
    return sorted({v for v in wanted if info.min <= v <= info.max})


def agree(graph, device, directed=True):
    """apsp's distances are SciPy's, exactly (with and without the predecessors, which take the
    other conversion path), or both raise NegativeCycleError."""
    try:
        want = scipy_fw(graph, directed=directed)
    except ScipyNegativeCycleError:
        for predecessors in (False, True):
            with pytest.raises(ScipyNegativeCycleError):  # apsp's subclasses SciPy's
                apsp.floyd_warshall(graph, directed=directed,
                                    return_predecessors=predecessors, device=device)
        return
    got = apsp.floyd_warshall(graph, directed=directed, device=device)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want, err_msg=f"{graph.dtype}: {graph.tolist()}")
    dist, pred = apsp.floyd_warshall(graph, directed=directed, return_predecessors=True,
                                     device=device)
    np.testing.assert_array_equal(dist, want, err_msg=f"{graph.dtype}: {graph.tolist()}")
    a = np.where(graph != 0, graph.astype(np.float64), np.inf)  # SciPy's reading, undirected too
    check_paths(a if directed else np.minimum(a, a.T), dist, pred, np.int64)


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_extremes(dtype):
    """Every pair (a, b) of the type's extremes on a path 0 -> 1 -> 2, dense and sparse (one
    sum, so SciPy's float64 answer is the exact sum rounded once), and on a 2-cycle, which is negative where
    SciPy's float64 sum is: int64 -2^63 and 2^63 - 1 add up to 0 there, not -1. Undirected too:
    a negative edge is then a negative cycle. (The type's choice is the package's: apsp's
    pthread backend runs these thousands of small solves; test_whole_range runs on each device.)"""
    device = "host"
    values = extremes(dtype)
    for a in values:
        for b in values:
            path = np.array([[0, a, 0], [0, 0, b], [0, 0, 0]], dtype=dtype)
            agree(path, device)
            sparse = sp.csr_matrix(path)  # the sparse reading's conversion
            np.testing.assert_array_equal(apsp.floyd_warshall(sparse, device=device),
                                          scipy_fw(sparse))
            agree(path, device, directed=False)
            agree(np.array([[0, a], [b, 0]], dtype=dtype), device)


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_whole_range(device, dtype):
    """Random graphs with weights from all of the type's positive range: exact below 2^53, and
    for the 64-bit types float64 sums, associated in the blocked order (the last bits may
    differ from SciPy's)."""
    rng = np.random.default_rng(INTEGER_TYPES.index(dtype))
    for n in (30, 90):
        if dtype == np.bool_:
            w = rng.random((n, n)) < 0.1
        else:
            w = rng.integers(1, np.iinfo(dtype).max, (n, n), dtype=dtype, endpoint=True)
            w[rng.random((n, n)) >= 0.1] = 0
        got = apsp.floyd_warshall(w, device=device)
        same(got, scipy_fw(w), np.float64 if np.dtype(dtype).itemsize == 8 else np.int64)


def test_requested_type_refuses_what_it_cannot_hold():
    """dtype= refuses a weight its cast would change (a wrap, or float32's inf) rather than
    solve another graph."""
    wide = np.array([[0, 2**32 + 5], [0, 0]], dtype=np.int64)
    with pytest.raises(ValueError, match="dtype=int32: a weight of magnitude 4294967301"):
        apsp.floyd_warshall(wide, dtype=np.int32)
    unsigned = np.array([[0, 2**64 - 1], [0, 0]], dtype=np.uint64)
    with pytest.raises(ValueError, match="dtype=int64"):
        apsp.floyd_warshall(unsigned, dtype=np.int64)
    with pytest.raises(ValueError, match="dtype=float32"):
        apsp.floyd_warshall(np.array([[0, 1e39], [0, 0]]), dtype=np.float32)
    # What fits is taken: the marker's neighbour, a float64 weight float32 rounds to finite.
    fits = apsp.floyd_warshall(np.array([[0, apsp.INF32 - 1], [0, 0]]), dtype=np.int32)
    assert fits.tolist() == [[0, apsp.INF32 - 1], [apsp.INF32, 0]]
    got = apsp.floyd_warshall(np.array([[0, 1e38], [0, 0]]), dtype=np.float32)
    assert got[0, 1] == np.float32(1e38)
