"""apsp.shortest_path, dijkstra, johnson and bellman_ford against SciPy's on random sparse
graphs with integer, wide integer and real weights, the graphs that run on the library's sparse
methods (the report names the method), with indices of every shape, with and without
return_predecessors (each predecessor checked by path length, as SciPy's tests check them)."""
import os
import re

import numpy as np
import pytest
import scipy.sparse
from scipy.sparse import csgraph

import apsp
from apsp import _sources

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
        pytest.skip("dijkstra on negative weights: test_dijkstra_negative")
    for n in (1, 2, 30, 400):
        g = random_csr(rng, n, 3, negative)
        if negative and not directed:
            g = abs(g)  # (an undirected negative edge is a negative cycle)
        for indices in (None, 0, [n - 1, 0, 0], np.arange(n).reshape(-1, 1)[: min(n, 6)]):
            got = apsp.shortest_path(g, method=method, directed=directed, indices=indices)
            want = csgraph.shortest_path(g, method=method, directed=directed, indices=indices)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert np.array_equal(got, want), (n, indices)
            report = apsp._solve.default_solver().last_report
            # return_predecessors: the same distances, and SciPy's shape and type of trees
            got, pred = apsp.shortest_path(g, method=method, directed=directed, indices=indices,
                                           return_predecessors=True)
            assert np.array_equal(got, want), (n, indices)
            assert pred.shape == want.shape and pred.dtype == np.int32
            sources = np.arange(n) if indices is None else np.ravel(indices)
            assert_shortest_path_trees(got.reshape(-1, n), pred.reshape(-1, n), sources,
                                       least_weights(g, directed))
        # the library's sparse methods ran (a graph sent to floyd_warshall has no "method")
        assert report["method"].startswith(
            {"auto": "", "D": "dijkstra", "J": "johnson", "BF": "bellman-ford"}[method])


def test_dijkstra_negative():
    """Dijkstra on negative weights: SciPy's warning, then the shortest distances (Johnson's; what
    SciPy's dijkstra returns there since its search became label-correcting: SciPy 1.10's
    label-setting one returned longer ones, so SciPy's dijkstra is no oracle across versions,
    and on a negative cycle recent ones never return), checked against SciPy's bellman_ford; a
    negative cycle raises NegativeCycleError."""
    rng = np.random.default_rng(13)
    g = scipy.sparse.csr_matrix(([1.0, 2.0, -5.0, 1.0], ([0, 0, 2, 1], [1, 2, 1, 3])),
                                shape=(4, 4))
    with pytest.warns(UserWarning, match="negative weights"):
        dist, pred = apsp.dijkstra(g, indices=0, return_predecessors=True)
    assert np.array_equal(dist, [0, -3, 2, -2]) and np.array_equal(pred, [-9999, 2, 0, 1])
    for n, directed in ((5, True), (60, True), (60, False), (300, True)):
        g = random_csr(rng, n, 3, True)
        if not directed:
            g = abs(g)  # (an undirected negative edge is a negative cycle)
            g.data[::7] *= -1  # a few negative ones all the same: a negative cycle
        if g.data.min() >= 0:
            continue  # (the potentials made no weight negative: nothing to warn about)
        indices = [0, n - 1, n // 2]
        try:
            want = csgraph.bellman_ford(g, directed=directed, indices=indices)
        except csgraph.NegativeCycleError:
            with pytest.warns(UserWarning, match="negative weights"):
                with pytest.raises(csgraph.NegativeCycleError):
                    apsp.dijkstra(g, directed=directed, indices=indices)
            continue
        with pytest.warns(UserWarning, match="negative weights"):
            got, pred = apsp.dijkstra(g, directed=directed, indices=indices,
                                      return_predecessors=True)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-9), n
        _, johnson_pred = apsp.johnson(g, directed=directed, indices=indices,
                                       return_predecessors=True)
        assert np.array_equal(pred, johnson_pred), n
        with pytest.warns(UserWarning):
            assert np.allclose(apsp.shortest_path(g, method="D", directed=directed),
                               csgraph.shortest_path(g, method="BF", directed=directed))


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


def test_limit_nan_negative_and_min_only_without_indices():
    """SciPy's answers (issue 39.2): limit < 0 a ValueError, limit nan the sources only (every
    other distance inf), min_only with no index nothing reached (-9999 everywhere)."""
    g = random_csr(np.random.default_rng(4), 60, 2, False)
    with pytest.raises(ValueError, match="limit must be >= 0"):
        apsp.dijkstra(g, limit=-1)
    for indices in (None, [3, 9]):
        assert np.array_equal(apsp.dijkstra(g, indices=indices, limit=np.nan),
                              csgraph.dijkstra(g, indices=indices, limit=np.nan))
    got = apsp.dijkstra(g, indices=[], min_only=True, return_predecessors=True)
    want = csgraph.dijkstra(g, indices=[], min_only=True, return_predecessors=True)
    for a, b in zip(got, want):
        assert np.array_equal(a, b) and a.dtype == b.dtype
    assert np.array_equal(apsp.dijkstra(g, indices=[], min_only=True),
                          csgraph.dijkstra(g, indices=[], min_only=True))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_shortest_path_fw_overwrite(dtype):
    """shortest_path(method='FW', overwrite=True) writes the distances into the input where
    SciPy's does (a C-ordered float64 array), and into nothing else (issue 39.2)."""
    g = random_csr(np.random.default_rng(5), 40, 3, False).toarray().astype(dtype)
    ours, theirs = g.copy(), g.copy()
    got = apsp.shortest_path(ours, method="FW", overwrite=True)
    want = csgraph.shortest_path(theirs, method="FW", overwrite=True)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    assert dtype == np.float32 or not np.array_equal(ours, g)  # (float64: written)


def test_negative_weight_warning_unweighted():
    """SciPy's dijkstra warns of a negative weight with unweighted=True too, and its answer is
    the unweighted one (issue 39.2)."""
    g = np.array([[0, -1.0, 0], [0, 0, 2.0], [0, 0, 0]])
    for call in (lambda m: m.dijkstra(g, unweighted=True),
                 lambda m: m.shortest_path(g, method="D", unweighted=True)):
        with pytest.warns(UserWarning, match="negative weights"):
            want = call(csgraph)
        with pytest.warns(UserWarning, match="negative weights"):
            assert np.array_equal(call(apsp), want)


@pytest.mark.parametrize("dense", [True, False])
def test_negative_self_loop(dense):
    """A negative self-loop is a negative cycle to SciPy's johnson wherever it is, and to its
    bellman_ford where the indices reach it (issue 39.2)."""
    w = np.array([[0, 1.0, 0], [0, -1.0, 2.0], [0, 0, 0]])
    g = w if dense else scipy.sparse.csr_matrix(w)
    for indices in (None, [0], [2]):
        for function in ("johnson", "bellman_ford"):
            try:
                want = getattr(csgraph, function)(g, indices=indices)
            except csgraph.NegativeCycleError:
                with pytest.raises(csgraph.NegativeCycleError, match="node 1"):
                    getattr(apsp, function)(g, indices=indices)
                continue
            assert np.array_equal(getattr(apsp, function)(g, indices=indices), want)
    with pytest.raises(csgraph.NegativeCycleError):  # (the case that must raise, made sure of)
        apsp.bellman_ford(g, indices=[0])
    assert np.array_equal(apsp.bellman_ford(g, indices=[2]), [[np.inf, np.inf, 0]])


def least_weights(g, directed):
    """The dense V x V least weights SciPy reads from g (inf: no edge), both ways undirected."""
    w = g.toarray()
    w[w == 0] = np.inf
    return w if directed else np.minimum(w, w.T)


def assert_shortest_path_trees(dist, pred, sources, w, tol=0.0):
    """Every row of pred a shortest-path tree of its source under dist, as SciPy's own tests check
    predecessors (paths tie, so rows may differ from SciPy's): -9999 for the source and the
    unreachable, else an edge p -> t with dist[p] + w[p, t] == dist[t]."""
    for r, s in enumerate(sources):
        row, d = pred[r], dist[r]
        assert row[s] == -9999
        unreached = np.isinf(d)
        assert np.all(row[unreached] == -9999)
        for t in np.nonzero(~unreached)[0]:
            if t != s:
                p = row[t]
                assert 0 <= p < len(row) and np.isfinite(w[p, t]), (s, t, p)
                assert abs(d[p] + w[p, t] - d[t]) <= tol, (s, t, p)


def test_predecessors_of_each_function():
    rng = np.random.default_rng(5)
    g = random_csr(rng, 120, 3, True)
    w = least_weights(g, True)
    for ours, theirs in ((apsp.johnson, csgraph.johnson), (apsp.bellman_ford, csgraph.bellman_ford),
                         (apsp.dijkstra, csgraph.dijkstra)):
        graph = abs(g) if ours is apsp.dijkstra else g
        weights = least_weights(graph, True) if ours is apsp.dijkstra else w
        got, pred = ours(graph, indices=[4, 7], return_predecessors=True)
        want, _ = theirs(graph, indices=[4, 7], return_predecessors=True)
        assert np.array_equal(got, want)
        assert_shortest_path_trees(got, pred, [4, 7], weights)
    got, pred = apsp.dijkstra(abs(g), indices=[4], return_predecessors=True, limit=60)
    want, want_pred = csgraph.dijkstra(abs(g), indices=[4], return_predecessors=True, limit=60)
    assert np.array_equal(got, want)
    assert np.array_equal(pred == -9999, want_pred == -9999)


def weighted_csr(rng, n, kind, negative):
    """About 3 n edges of `kind`: "wide" whole numbers up to 2^40 (int64 distances, exact) or
    "real" fractions (float64, float32 for "real32"); shifted by potentials when `negative`."""
    e = 3 * n
    row, col = rng.integers(0, n, e), rng.integers(0, n, e)
    keep = row != col
    row, col = row[keep], col[keep]
    if kind == "wide":
        w = rng.integers(1, 2 ** 40, len(row)).astype(np.float64)
        p = rng.integers(0, 2 ** 38, n).astype(np.float64)
    else:
        w = rng.uniform(0.001, 10.0, len(row))
        p = rng.uniform(0, 5.0, n)
    if negative:
        w += p[row] - p[col]
    w[w == 0] = 1
    g = scipy.sparse.coo_matrix((w, (row, col)), shape=(n, n)).tocsr()
    g.sum_duplicates()
    return g.astype(np.float32) if kind == "real32" else g


@pytest.mark.parametrize("kind", ["wide", "real", "real32"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("negative", [False, True])
def test_wide_and_real_weights(kind, method, negative):
    """int64 distances equal SciPy's; real ones within 1e-9 V max|w| (the bound of
    src/sssp/on_threads.c, with SciPy's own rounding, for these sizes); predecessors by path
    length; the sparse methods ran, no V x V matrix."""
    if method == "D" and negative:
        pytest.skip("dijkstra on negative weights: test_dijkstra_negative")
    rng = np.random.default_rng(21)
    for n in (2, 40, 300):
        g = weighted_csr(rng, n, kind, negative)
        w = least_weights(g.astype(np.float64), True)
        tol = 0.0 if kind == "wide" else 1e-9 * n * float(np.max(np.abs(g.data)))
        for indices in (None, [n - 1, 0, 0]):
            got, pred = apsp.shortest_path(g, method=method, indices=indices,
                                           return_predecessors=True)
            want = csgraph.shortest_path(g, method=method, indices=indices)
            assert got.dtype == np.float64 and got.shape == want.shape
            assert np.array_equal(np.isinf(got), np.isinf(want))
            finite = np.isfinite(want)
            assert np.all(np.abs(got[finite] - want[finite]) <= tol), (n, indices)
            sources = np.arange(n) if indices is None else np.ravel(indices)
            assert_shortest_path_trees(got, pred, sources, w, tol)
    report = apsp._solve.default_solver().last_report  # (n = 300: sparse, every method)
    assert "method" in report and report["device"] == "host threads"


def test_real_negative_cycle():
    g = np.array([[0, 1.5, 0], [0, 0, -3.25], [1.25, 0, 0]])
    for function in (apsp.johnson, apsp.bellman_ford):
        with pytest.raises(csgraph.NegativeCycleError):
            function(g, indices=[0])


def enum_lines(header, name):
    """The lines of the C enum `name` in include/HEADER of the source tree, one a constant in
    order: (constant, the line)."""
    path = os.path.join(os.environ["APSP_SOURCE_ROOT"], "include", header)
    text = open(path, encoding="utf-8").read()
    body = re.search(r"typedef enum %s \{(.*?)\} %s;" % (name, name), text, re.S).group(1)
    return re.findall(r"^ *(APSP_\w+)(?: = 0)?,(.*)$", body, re.M)


@pytest.mark.skipif("APSP_SOURCE_ROOT" not in os.environ, reason="needs the source tree")
def test_method_and_dtype_numbers_are_the_headers():
    """The numbers the package passes for a SciPy method letter and a distances' type are the C
    enums' of the headers (read here, apart from the C module that gives the package them)."""
    methods = enum_lines("apsp_sources.h", "apsp_method")
    letters = {}
    for value, (constant, comment) in enumerate(methods):
        letter = re.search(r"'(\w+)'", comment)
        letters[letter.group(1) if letter else "auto"] = value
    assert _sources.METHODS == letters
    dtypes = enum_lines("apsp.h", "apsp_dtype")
    dtypes = {c[len("APSP_"):].lower(): v for v, (c, _) in enumerate(dtypes)}
    assert apsp._core.DTYPES == dtypes
    assert _sources.DTYPES == {name: dtypes[name] for name in ("int32", "int64", "float64")}
    backends = enum_lines("apsp.h", "apsp_backend_kind")
    assert apsp._core.BACKENDS == {c[len("APSP_BACKEND_"):].lower(): v
                                   for v, (c, _) in enumerate(backends)}
