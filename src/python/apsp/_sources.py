"""SciPy's shortest_path, dijkstra, johnson and bellman_ford on apsp_solver_solve_sources.

The rows of the chosen sources only (indices), by the library's sparse methods on the host
threads: no V x V matrix for a sparse input (issue 27). Their distances are int32, so a graph
goes there when its weights are whole numbers with (V - 1) |w| < 2^30 - 1; any other graph, and
return_predecessors, go through apsp.floyd_warshall (the whole V x V matrix, then the rows of
the indices), whose results are SciPy's as well. Where SciPy's dijkstra only warns of a negative
weight, apsp's raises ValueError.
"""

import numpy as np

from . import _convert
from ._solve import default_solver

NO_PREDECESSOR = -9999

# SciPy's method letters, as apsp_method numbers them (include/apsp_sources.h).
METHODS = {"auto": 0, "FW": 1, "D": 2, "J": 3, "BF": 4}


def _indices(indices, n):
    """(flat int32 array, output shape prefix) of SciPy's indices: None is every vertex; negative
    ones count from the end."""
    if indices is None:
        return np.arange(n, dtype=np.int32), (n,)
    ind = np.array(indices, dtype=np.int64, order="C", copy=True)
    shape = ind.shape
    ind = ind.ravel()
    ind[ind < 0] += n
    if np.any(ind < 0) or np.any(ind >= n):
        raise ValueError("indices out of range 0...N")
    return ind.astype(np.int32), shape


def _edges(csgraph, directed, unweighted):
    """(n, row, col, weights) of SciPy's reading of the graph, both ways when undirected."""
    graph = csgraph
    if _convert._is_pydata_sparse(graph):
        graph = _convert._scipy_of_pydata(graph)
        n, row, col, data = _convert._edges_of_sparse(graph, zero_is_edge=False)
    elif _convert.is_sparse(graph):
        n, row, col, data = _convert._edges_of_sparse(graph)
    else:
        a, mask = _convert._edges_of_dense(graph)
        np.fill_diagonal(mask, False)
        n = a.shape[0]
        row, col = np.nonzero(mask)
        data = a[mask]
    if unweighted:
        data = np.ones(len(row), dtype=np.int64)
    if not directed:
        row, col = np.concatenate([row, col]), np.concatenate([col, row])
        data = np.concatenate([data, data])
    return n, row, col, data


def _whole_weights(data, n):
    """The weights as int64 when the library's int32 distances hold them exactly, else None."""
    if data.size == 0:
        return np.zeros(0, dtype=np.int64)
    if data.dtype.kind == "f" and not np.all(data == np.rint(data)):
        return None
    largest = _convert._largest(data)
    if largest * max(n - 1, 1) >= _convert.INF32:
        return None
    return data.astype(np.int64)


def _rows_of_floyd_warshall(csgraph, directed, unweighted, ind, return_predecessors):
    from . import floyd_warshall

    result = floyd_warshall(csgraph, directed=directed, unweighted=unweighted,
                            return_predecessors=return_predecessors)
    if return_predecessors:
        dist, pred = result
        return np.asarray(dist, dtype=np.float64)[ind], pred[ind]
    return np.asarray(result, dtype=np.float64)[ind], None


def _solve(csgraph, method, directed, return_predecessors, unweighted, indices):
    """(distances S x V float64, predecessors S x V int32 or None, output shape prefix)."""
    if method not in METHODS:
        raise ValueError("unrecognized method '%s'" % method)
    n, row, col, data = _edges(csgraph, directed, unweighted)
    ind, shape = _indices(indices, n)
    weights = None if return_predecessors else _whole_weights(data, n)
    if n == 0 or len(ind) == 0 or weights is None:
        dist, pred = _rows_of_floyd_warshall(csgraph, directed, unweighted, ind,
                                             return_predecessors)
        return dist, pred, shape
    out = np.empty((len(ind), n), dtype=np.int32)
    solver = default_solver()
    report = solver._open().solve_sources(row.astype(np.int32), col.astype(np.int32), weights,
                                          n, ind, out, METHODS[method])
    solver.last_report = report
    dist = out.astype(np.float64)
    dist[out == _convert.INF32] = np.inf
    return dist, None, shape


def _call(csgraph, method, directed, return_predecessors, unweighted, indices, limit=np.inf):
    from ._solve import _core, _raise

    try:
        dist, pred, shape = _solve(csgraph, method, directed, return_predecessors, unweighted,
                                   indices)
    except _core.Error as error:
        _raise(error)
    if limit < np.inf:
        beyond = dist > limit
        dist[beyond] = np.inf
        if pred is not None:
            pred[beyond] = NO_PREDECESSOR
    return dist, pred, shape


def _shaped(dist, pred, shape, n, return_predecessors):
    dist = dist.reshape(shape + (n,))
    return (dist, pred.reshape(shape + (n,))) if return_predecessors else dist


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None):
    """As scipy.sparse.csgraph.shortest_path: method 'auto', 'FW', 'D', 'J' or 'BF'; 'FW' takes
    no indices (ValueError, as SciPy). overwrite is accepted and the input left alone."""
    if method == "FW" and indices is not None:
        raise ValueError("Cannot specify indices with method == 'FW'.")
    dist, pred, shape = _call(csgraph, method, directed, return_predecessors, unweighted,
                              indices)
    return _shaped(dist, pred, shape, dist.shape[1], return_predecessors)


def johnson(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False):
    """As scipy.sparse.csgraph.johnson."""
    dist, pred, shape = _call(csgraph, "J", directed, return_predecessors, unweighted, indices)
    return _shaped(dist, pred, shape, dist.shape[1], return_predecessors)


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False):
    """As scipy.sparse.csgraph.bellman_ford."""
    dist, pred, shape = _call(csgraph, "BF", directed, return_predecessors, unweighted, indices)
    return _shaped(dist, pred, shape, dist.shape[1], return_predecessors)


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False,
             limit=np.inf, min_only=False):
    """As scipy.sparse.csgraph.dijkstra (limit: distances above it are inf; min_only: for each
    vertex the least distance from any of the indices, and with return_predecessors its
    predecessors and that source, -9999 where none reaches it)."""
    dist, pred, shape = _call(csgraph, "D", directed, return_predecessors, unweighted, indices,
                              limit)
    n = dist.shape[1]
    if not min_only:
        return _shaped(dist, pred, shape, n, return_predecessors)
    ind, _ = _indices(indices, n)
    best = np.argmin(dist, axis=0) if len(ind) else np.zeros(n, dtype=np.int64)
    columns = np.arange(n)
    least = dist[best, columns] if len(ind) else np.full(n, np.inf)
    reached = np.isfinite(least)
    if not return_predecessors:
        return least
    sources = np.where(reached, ind[best], NO_PREDECESSOR).astype(np.int32)
    pred_min = np.where(reached, pred[best, columns], NO_PREDECESSOR).astype(np.int32)
    return least, pred_min, sources
