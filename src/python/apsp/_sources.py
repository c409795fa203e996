"""SciPy's shortest_path, dijkstra, johnson and bellman_ford on apsp_solver_solve_sources.

The rows of the chosen sources only (indices), by the library's sparse methods on the host
threads: no V x V matrix for a sparse input (issue 27). Whole-number weights give exact integer
distances (int32, or int64 past 2^30 while SciPy's float64 sums are exact), any other weights
float64 ones summed in double along each path (within a few ulps of SciPy's). With
return_predecessors the predecessors are the search's own tree (a shortest-path tree, which may
differ from SciPy's where paths tie); method 'FW', and 'auto' with return_predecessors on a
graph SciPy would give to Floyd-Warshall, go through apsp.floyd_warshall (the whole V x V
matrix, then the rows of the indices), as SciPy's own Floyd-Warshall does. Dijkstra on a
negative weight warns as SciPy's does and answers with Johnson's shortest distances (what recent
SciPy's dijkstra returns there; SciPy 1.10's label-setting search returned longer ones), and
raises NegativeCycleError on a negative cycle, where recent SciPy's does not return at all.
"""

import warnings

import numpy as np

from . import _convert, _core

NO_PREDECESSOR = -9999

# SciPy's method letters and the library's names of those methods (apsp_method_name).
_METHOD_NAMES = {"auto": "auto", "FW": "fw", "D": "dijkstra", "J": "johnson",
                 "BF": "bellman-ford"}
# The numbers solve_sources takes: apsp_method's and apsp_dtype's, from the C module's lists
# (_core.METHODS, _core.DTYPES), which it makes from the library's, so none is typed here.
METHODS = {letter: _core.METHODS[name] for letter, name in _METHOD_NAMES.items()}
# (the distances' types solve_sources takes)
DTYPES = {name: _core.DTYPES[name] for name in ("int32", "int64", "float64")}


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


def _edges(csgraph, directed):
    """(n, row, col, weights) of SciPy's reading of the graph, both ways when undirected."""
    graph = csgraph
    if _convert._is_pydata_sparse(graph):  # its stored entries, 0 an edge (SciPy's CSR reading)
        graph = _convert._scipy_of_pydata(graph)
    if _convert.is_sparse(graph):
        n, row, col, data = _convert._edges_of_sparse(graph)
    else:
        a, mask = _convert._edges_of_dense(graph)
        np.fill_diagonal(mask, False)
        n = a.shape[0]
        row, col = np.nonzero(mask)
        data = a[mask]
    if not directed:
        row, col = np.concatenate([row, col]), np.concatenate([col, row])
        data = np.concatenate([data, data])
    return n, row, col, data


def _negative_loops(csgraph, unweighted):
    """The vertices with a self-loop of negative weight, which SciPy's johnson and bellman_ford
    read as a negative cycle (the edge lists leave self-loops out)."""
    if unweighted:
        return np.zeros(0, dtype=np.int64)
    graph = csgraph
    if _convert._is_pydata_sparse(graph):
        graph = _convert._scipy_of_pydata(graph)
    if _convert.is_sparse(graph):
        coo = graph.tocoo()
        loops = (coo.row == coo.col) & (np.asarray(coo.data) < 0)
        return np.unique(coo.row[loops])
    a, mask = _convert._edges_of_dense(graph)
    return np.flatnonzero(np.diagonal(mask) & (np.diagonal(a) < 0))


def _refuse_negative_loops(csgraph, method, unweighted, reached):
    """NegativeCycleError, in SciPy's words, where SciPy's johnson (any negative self-loop) or
    bellman_ford (one that the indices reach) finds a negative cycle."""
    from ._solve import NegativeCycleError

    if method not in ("J", "BF"):
        return
    loops = _negative_loops(csgraph, unweighted)
    if method == "BF":
        loops = loops[reached[:, loops].any(axis=0)] if len(loops) else loops
    if len(loops):
        raise NegativeCycleError(f"Negative cycle detected on node {int(loops[0])}")


def _weights(data, n):
    """(weights, apsp_dtype number of the distances) as the library takes them: int64 weights
    with int32 distances while no distance can reach 2^30 - 1, int64 ones while SciPy's float64
    sums are exact too (apsp's are exact in int64), else float64 weights as SciPy reads them
    (fractions, or integers past 2^52), summed in double."""
    if data.size == 0:
        return np.zeros(0, dtype=np.int64), DTYPES["int32"]
    if data.dtype.kind == "f" and not np.all(data == np.rint(data)):
        return data.astype(np.float64), DTYPES["float64"]
    kind, _ = _convert._integer_type(_convert._largest(data), n)
    if kind == np.float64:
        return data.astype(np.float64), DTYPES["float64"]
    return data.astype(np.int64), DTYPES[kind.name]


def _rows_of_floyd_warshall(solver, csgraph, directed, unweighted, ind, return_predecessors,
                            progress):
    result = solver.floyd_warshall(csgraph, directed=directed, unweighted=unweighted,
                                   return_predecessors=return_predecessors, progress=progress)
    if return_predecessors:
        dist, pred = result
        return np.asarray(dist, dtype=np.float64)[ind], pred[ind]
    return np.asarray(result, dtype=np.float64)[ind], None


def _scipy_picks_floyd_warshall(csgraph, n):
    """Whether SciPy's method='auto' runs Floyd-Warshall: at least N^2 / 4 entries (a sparse
    input's stored ones, a dense one's positive ones, as SciPy counts them)."""
    if _convert._is_pydata_sparse(csgraph) or _convert.is_sparse(csgraph):
        entries = csgraph.nnz
    else:
        entries = int(np.sum(np.asarray(csgraph) > 0))
    return entries >= n * n / 4


# SciPy's words when its dijkstra meets a negative weight (its warning, word for word).
NEGATIVE_DIJKSTRA = ("Graph has negative weights: dijkstra will give inaccurate results if the "
                     "graph contains negative cycles. Consider johnson or bellman_ford.")


def search_rows(row, col, weights, n, ind, method, dtype, predecessors, solver=None,
                progress=None):
    """(distances S x V of the apsp_dtype number `dtype`, its unreachable marker where none
    reaches, predecessors S x V int32 or None) of the library's method letter from the vertex
    numbers ind (int32), on `solver` (None: the default Solver), whose last_report it sets;
    progress(done, total) counts the sources."""
    if solver is None:
        from ._solve import default_solver

        solver = default_solver()
    out_type = {0: np.int32, 1: np.int64, 3: np.float64}[dtype]
    out = np.empty((len(ind), n), dtype=out_type)
    pred = np.empty((len(ind), n), dtype=np.int32) if predecessors else None
    row, col = np.asarray(row, dtype=np.int32), np.asarray(col, dtype=np.int32)  # (no copy)
    solver._call(progress, solver._open().solve_sources, row, col, weights, n, ind, out,
                 METHODS[method], pred, dtype)
    solver._log_last(n)
    return out, pred


def unreached(out, dtype):
    """Where search_rows' distances of the apsp_dtype number `dtype` read unreachable."""
    if dtype == DTYPES["float64"]:
        return ~np.isfinite(out)
    return out == (_convert.INF32 if dtype == DTYPES["int32"] else _convert.INF64)


def _solve(solver, csgraph, method, directed, return_predecessors, unweighted, indices, progress):
    """(distances S x V float64, predecessors S x V int32 or None, output shape prefix)."""
    if method not in METHODS:
        raise ValueError("unrecognized method '%s'" % method)
    n, row, col, data = _edges(csgraph, directed)
    ind, shape = _indices(indices, n)
    negative = bool(data.size) and data.min() < 0
    if unweighted:
        data = np.ones(len(row), dtype=np.int64)
    if data.dtype.kind == "f":  # (an explicit +inf entry is an edge no path takes)
        keep = ~np.isposinf(data)
        row, col, data = row[keep], col[keep], data[keep]
    if method == "D" and negative:
        # SciPy's dijkstra warns of a negative weight in the graph, unweighted=True too.
        warnings.warn(NEGATIVE_DIJKSTRA, UserWarning, stacklevel=4)
        # The library's Dijkstra refuses negative weights (its radix heap needs keys that never
        # fall below the last one popped); SciPy's returns, since the label-correcting search
        # of its recent versions, the shortest distances wherever there is no negative cycle:
        # Johnson's answer.
        method = "D" if unweighted else "J"
    weights, dtype = _weights(data, n)
    # Predecessors of tied paths follow the method that ran: 'FW' and auto's where SciPy's auto
    # runs Floyd-Warshall go through the whole matrix, whose trees are SciPy's Floyd-Warshall's
    # (SciPy's own tests compare them exactly).
    if return_predecessors and (method == "FW" or (method == "auto" and
                                                   _scipy_picks_floyd_warshall(csgraph, n))):
        weights = None
    if n == 0 or len(ind) == 0 or weights is None:
        dist, pred = _rows_of_floyd_warshall(solver, csgraph, directed, unweighted, ind,
                                             return_predecessors, progress)
        return dist, pred, shape
    out, pred = search_rows(row, col, weights, n, ind, method, dtype, return_predecessors, solver,
                            progress)
    if dtype == DTYPES["float64"]:
        dist = out
    else:
        dist = out.astype(np.float64)
        dist[unreached(out, dtype)] = np.inf
    _refuse_negative_loops(csgraph, method, unweighted, np.isfinite(dist))
    return dist, pred, shape


def _call(solver, csgraph, method, directed, return_predecessors, unweighted, indices,
          progress, limit=np.inf):
    dist, pred, shape = _solve(solver, csgraph, method, directed, return_predecessors, unweighted,
                               indices, progress)
    if not limit >= np.inf:  # (nan too: SciPy's search then settles the sources only)
        beyond = ~(dist <= limit)
        ind, _ = _indices(indices, dist.shape[1])
        beyond[np.arange(len(ind)), ind] = False
        dist[beyond] = np.inf
        if pred is not None:
            pred[beyond] = NO_PREDECESSOR
    return dist, pred, shape


def _shaped(dist, pred, shape, n, return_predecessors):
    dist = dist.reshape(shape + (n,))
    return (dist, pred.reshape(shape + (n,))) if return_predecessors else dist


_SOURCES_PARAMETERS = """csgraph : array_like, sparse matrix or pydata/sparse array
            The N x N graph, read as SciPy reads it (a dense array: 0, inf, nan and
            |w| <= 1e-8 are no edge; a sparse one: every stored entry is an edge).
        directed : bool, optional
            False: every edge goes both ways.
        indices : int or array_like of int, optional
            The sources (None: every vertex; negative ones count from the end)."""
_SOURCES_RETURNS = """Returns
        -------
        dist_matrix : ndarray
            float64 distances, indices.shape + (N,) (inf where none reaches).
        predecessors : ndarray
            int32, the same shape, -9999 for the source and the unreached; returned with
            return_predecessors=True only. Where shortest paths tie they may name another one
            than SciPy's (each is a shortest path).

        Raises
        ------
        apsp.NegativeCycleError
            A negative cycle (for bellman_ford: one that the indices reach)."""


class SourcesMethods:
    """SciPy's shortest_path, dijkstra, johnson and bellman_ford as methods of apsp.Solver
    (the module-level functions run them on the default Solver)."""

    def shortest_path(self, csgraph, method="auto", directed=True, return_predecessors=False,
                      unweighted=False, overwrite=False, indices=None, *, progress=None):
        if method == "FW" and indices is not None:
            raise ValueError("Cannot specify indices with method == 'FW'.")
        if method == "FW" and overwrite:
            return self.floyd_warshall(csgraph, directed=directed,
                                       return_predecessors=return_predecessors,
                                       unweighted=unweighted, overwrite=True, progress=progress)
        dist, pred, shape = _call(self, csgraph, method, directed, return_predecessors,
                                  unweighted, indices, progress)
        return _shaped(dist, pred, shape, dist.shape[1], return_predecessors)

    def johnson(self, csgraph, directed=True, indices=None, return_predecessors=False,
                unweighted=False, *, progress=None):
        dist, pred, shape = _call(self, csgraph, "J", directed, return_predecessors, unweighted,
                                  indices, progress)
        return _shaped(dist, pred, shape, dist.shape[1], return_predecessors)

    def bellman_ford(self, csgraph, directed=True, indices=None, return_predecessors=False,
                     unweighted=False, *, progress=None):
        dist, pred, shape = _call(self, csgraph, "BF", directed, return_predecessors, unweighted,
                                  indices, progress)
        return _shaped(dist, pred, shape, dist.shape[1], return_predecessors)

    def dijkstra(self, csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False, limit=np.inf, min_only=False, *, progress=None):
        if limit < 0:
            raise ValueError("limit must be >= 0")
        dist, pred, shape = _call(self, csgraph, "D", directed, return_predecessors, unweighted,
                                  indices, progress, limit)
        n = dist.shape[1]
        if not min_only:
            return _shaped(dist, pred, shape, n, return_predecessors)
        return _least_of(dist, pred, _indices(indices, n)[0], return_predecessors)


def _least_of(dist, pred, ind, return_predecessors):
    """dijkstra's min_only: for each vertex the least distance from any source, and with
    return_predecessors its predecessor and that source (-9999 where none reaches it)."""
    n = dist.shape[1]
    if len(ind) == 0:  # no source: nothing reached, as SciPy's
        least = np.full(n, np.inf)
        none = np.full(n, NO_PREDECESSOR, dtype=np.int32)
        return (least, none, none.copy()) if return_predecessors else least
    best = np.argmin(dist, axis=0)
    columns = np.arange(n)
    least = dist[best, columns]
    reached = np.isfinite(least)
    if not return_predecessors:
        return least
    sources = np.where(reached, ind[best], NO_PREDECESSOR).astype(np.int32)
    pred_min = np.where(reached, pred[best, columns], NO_PREDECESSOR).astype(np.int32)
    return least, pred_min, sources


SourcesMethods.shortest_path.__doc__ = f"""Shortest paths from chosen sources, as SciPy's.

        The rows of the indices only, by the library's sparse methods on this Solver's host
        threads; 'FW' (and 'auto' with return_predecessors where SciPy's auto runs
        Floyd-Warshall) solves the whole matrix on this Solver's device.

        Parameters
        ----------
        {_SOURCES_PARAMETERS}
        method : {{'auto', 'FW', 'D', 'J', 'BF'}}, optional
            As SciPy's; 'FW' takes no indices (ValueError, as SciPy).
        return_predecessors, unweighted : bool, optional
            As SciPy's.
        overwrite : bool, optional
            With 'FW', the distances go into the input where SciPy's go (see
            apsp.floyd_warshall); the other methods leave the input alone.
        progress : callable, optional
            Called as ``progress(done, total)`` as the sources (or Floyd-Warshall's rounds)
            are done.

        {_SOURCES_RETURNS}
        """
_ONE_METHOD_DOC = """Shortest paths from chosen sources by {what}, as SciPy's {name}.

        Parameters
        ----------
        {parameters}
        return_predecessors, unweighted : bool, optional
            As SciPy's.
        progress : callable, optional
            Called as ``progress(done, total)`` as the sources are done.

        {returns}
        """
for _name, _what in (("johnson", "Johnson's method"), ("bellman_ford", "Bellman-Ford")):
    getattr(SourcesMethods, _name).__doc__ = _ONE_METHOD_DOC.format(
        what=_what, name=_name, parameters=_SOURCES_PARAMETERS, returns=_SOURCES_RETURNS)
SourcesMethods.dijkstra.__doc__ = f"""Shortest paths from chosen sources by Dijkstra, as SciPy's.

        On a negative weight it warns as SciPy's does and answers Johnson's distances.

        Parameters
        ----------
        {_SOURCES_PARAMETERS}
        return_predecessors, unweighted : bool, optional
            As SciPy's.
        limit : float, optional
            Distances above it are inf (nan: the sources alone are reached); < 0 is refused.
        min_only : bool, optional
            For each vertex the least distance from any of the indices (1-D results), and with
            return_predecessors its predecessor and that source (a third array).
        progress : callable, optional
            Called as ``progress(done, total)`` as the sources are done.

        {_SOURCES_RETURNS}
        """
