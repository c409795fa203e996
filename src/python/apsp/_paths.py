"""Paths from a predecessor matrix: apsp.reconstruct_path (the vertices of one path, as the
apsp command's --path prints them) and SciPy's construct_dist_matrix (each path's length)."""

import numpy as np

from . import _convert

NO_PREDECESSOR = -9999


def reconstruct_path(predecessors, i, j):
    """The shortest path from i to j that a predecessor matrix holds.

    Parameters
    ----------
    predecessors : array_like of int
        N x N predecessors as floyd_warshall, shortest_path, dijkstra, johnson and
        bellman_ford return them (-9999 for none), or one row of them (the row of source i).
    i, j : int
        The path's first and last vertex (negative ones count from the end).

    Returns
    -------
    list of int
        The vertices from i to j; ``[i]`` when i == j, ``[]`` when no path reaches j.

    Raises
    ------
    ValueError
        A vertex out of range, or predecessors that loop (not a shortest-path tree).
    """
    pred = np.asarray(predecessors)
    n = pred.shape[-1]
    if pred.ndim not in (1, 2) or (pred.ndim == 2 and pred.shape[0] != n):
        raise ValueError("predecessors should be an N x N array or one row of one")
    i, j = (int(v) + n if int(v) < 0 else int(v) for v in (i, j))
    if not (0 <= i < n and 0 <= j < n):
        raise ValueError(f"vertices ({i}, {j}) out of range 0...{n - 1}")
    row = pred if pred.ndim == 1 else pred[i]
    path = [j]
    while path[-1] != i:
        before = int(row[path[-1]])
        if before == NO_PREDECESSOR:
            return []
        if not 0 <= before < n or len(path) > n:
            raise ValueError(f"predecessors: the path from {i} to {j} loops or leaves 0...{n - 1}")
        path.append(before)
    return path[::-1]


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    """The length of every path of a predecessor matrix, as scipy.sparse.csgraph's.

    Parameters
    ----------
    graph : array_like, sparse matrix or pydata/sparse array
        The N x N graph whose edges the paths take, read as apsp.floyd_warshall reads it.
    predecessors : array_like of int32
        N x N predecessors (-9999 for none), as the solvers return them; another type raises
        TypeError, as SciPy's does.
    directed : bool, optional
        False: an edge either way, the least weight of the two.
    null_value : float, optional
        The value where no path reaches (0 on the diagonal).

    Returns
    -------
    dist_matrix : ndarray
        N x N float64: the sum of the edge weights along each path.
    """
    pred = np.asarray(predecessors)
    if pred.dtype != np.int32:  # as SciPy's, whose tests call an int64 matrix a TypeError
        raise TypeError("predecessors: expected int32 (what the solvers return), got %s"
                        % pred.dtype)
    w, _, _ = _convert.weight_matrix(graph, directed, False, np.float64, False)
    n = w.shape[0]
    if pred.shape != (n, n):
        raise ValueError("graph and predecessors should have the same shape")
    rows = np.arange(n)[:, None]
    reached = pred >= 0
    # Pointer doubling: each step adds the stretch from `up` (an ancestor on the path) back to
    # the stretch already summed, so a path of length L takes log2(L) passes over the matrix.
    up = np.where(reached, pred, rows)
    total = np.where(reached, w[up, np.arange(n)[None, :]], 0.0)
    for _ in range(max(n, 2).bit_length() + 1):
        if not np.any(up != rows):
            break
        total = total + total[rows, up]
        up = up[rows, up]
    else:
        raise ValueError("predecessors: a path loops (not a shortest-path tree)")
    dist = np.where(reached, total, null_value)
    np.fill_diagonal(dist, 0.0)
    return dist
