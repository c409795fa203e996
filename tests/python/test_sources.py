"""apsp.shortest_path, dijkstra, johnson and bellman_ford against SciPy's on random sparse
graphs with integer weights, the graphs that run on the library's sparse methods (the report
names the method), with indices of every shape."""
import numpy as np
import pytest
import scipy.sparse
from scipy.sparse import csgraph

import apsp

METHODS = ["auto", "D", "J", "BF"]


def random_csr(rng, n, degree, negative):
    """n vertices, about degree * n edges of integer weights 1-100 (shifted by potentials, which
    makes negative weights and no negative cycle, when `negative`)."""
    e = degree * n
    row, col = rng.integers(0, n, e), rng.integers(0, n, e)
    keep = row != col
    row, col = row[keep], col[keep]
    w = rng.integers(1, 101, len(row)).astype(np.float64)
    if negative:
        p = rng.integers(0, 50, n)
        w += p[row] - p[col]
        w[w == 0] = 1  # (a SciPy sparse 0 would be an edge to apsp: keep them apart)
    g = scipy.sparse.coo_matrix((w, (row, col)), shape=(n, n)).tocsr()
    g.sum_duplicates()  # (both read the summed matrix)
    return g


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("negative", [False, True])
@pytest.mark.parametrize("directed", [True, False])
def test_against_scipy(method, negative, directed):
    rng = np.random.default_rng(7)
    if method == "D" and negative:
        pytest.skip("dijkstra refuses negative weights (test_dijkstra_negative)")
    for n in (1, 2, 30, 400):
        g = random_csr(rng, n, 3, negative)
        if negative and not directed:
            g = abs(g)  # (an undirected negative edge is a negative cycle)
        for indices in (None, 0, [n - 1, 0, 0], np.arange(n).reshape(-1, 1)[: min(n, 6)]):
            got = apsp.shortest_path(g, method=method, directed=directed, indices=indices)
            want = csgraph.shortest_path(g, method=method, directed=directed, indices=indices)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert np.array_equal(got, want), (n, indices)
        # the library's sparse methods ran (a graph sent to floyd_warshall has no "method")
        assert apsp._solve.default_solver().last_report["method"].startswith(
            {"auto": "", "D": "dijkstra", "J": "johnson", "BF": "bellman-ford"}[method])


def test_dijkstra_negative():
    g = scipy.sparse.csr_matrix(np.array([[0, -1.0], [0, 0]]))
    with pytest.raises(ValueError, match="non-negative"):
        apsp.dijkstra(g)


def test_negative_cycle():
    g = np.array([[0, 1.0, 0], [0, 0, -3.0], [1.0, 0, 0]])
    for function in (apsp.johnson, apsp.bellman_ford):
        with pytest.raises(csgraph.NegativeCycleError):
            function(g, indices=[0])


def test_limit_and_min_only():
    rng = np.random.default_rng(3)
    g = random_csr(rng, 200, 2, False)
    for limit in (0, 50, np.inf):
        assert np.array_equal(apsp.dijkstra(g, indices=[3, 9], limit=limit),
                              csgraph.dijkstra(g, indices=[3, 9], limit=limit))
    assert np.array_equal(apsp.dijkstra(g, indices=[3, 9, 40], min_only=True),
                          csgraph.dijkstra(g, indices=[3, 9, 40], min_only=True))
