"""SciPy csgraph's meaning of a graph, made into the dense matrix that apsp._core solves.

SciPy 1.10's ``floyd_warshall`` (checked against it in tests/python/):

- dense input: zeros, ``inf`` (either sign) and ``nan`` off the diagonal are no edge; masked
  entries of a masked array too;
- sparse input: every explicit entry is an edge, explicit zeros included (weight 0); ``inf`` and
  ``nan`` entries are none; repeated entries of a CSR/CSC matrix keep the least (apsp does the
  same for COO, which SciPy refuses);
- self-loops are ignored: the diagonal starts at 0;
- ``directed=False``: an edge either way, the least weight of the two;
- ``unweighted=True``: every edge weighs 1.
"""

import numpy as np

from . import _core

INF32 = _core.INF32
INF64 = _core.INF64

KERNEL_TYPES = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))


def unreachable(dtype):
    """The marker of an unreachable pair in a matrix of the given type."""
    dtype = np.dtype(dtype)
    if dtype == np.int32:
        return INF32
    if dtype == np.int64:
        return INF64
    return np.inf


def is_sparse(graph):
    if not type(graph).__module__.startswith("scipy.sparse"):
        return False
    import scipy.sparse

    return scipy.sparse.issparse(graph)


def _edges_of_dense(graph):
    """The input as an ndarray and the mask of its edges (self-loops included)."""
    if isinstance(graph, np.ma.MaskedArray):
        graph = graph.filled(0)
    a = np.asarray(graph)
    if a.dtype.kind not in "biuf":
        a = a.astype(np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("graph should be a square array")
    mask = a != 0
    if a.dtype.kind == "f":
        mask &= np.isfinite(a)
    return a, mask


def _edges_of_sparse(graph):
    """Row, column and weight of each edge, the least of repeated ones, self-loops dropped."""
    if graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
        raise ValueError("graph should be a square array")
    coo = graph.tocoo()  # (keeps repeated entries: tocsr would add them up)
    row = np.asarray(coo.row, dtype=np.int64)
    col = np.asarray(coo.col, dtype=np.int64)
    data = np.asarray(coo.data)
    if data.dtype.kind not in "biuf":
        data = data.astype(np.float64)
    keep = row != col
    if data.dtype.kind == "f":
        keep &= np.isfinite(data)
    row, col, data = row[keep], col[keep], data[keep]
    order = np.lexsort((data, col, row))
    row, col, data = row[order], col[order], data[order]
    first = np.ones(len(row), dtype=bool)
    first[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
    return graph.shape[0], row[first], col[first], data[first]


def compute_type(weights, n, requested, unweighted):
    """(kernel type, output type): floats keep their precision; integers are solved exactly in
    int32 when every distance fits it ((n - 1) * max |w| < 2^30 - 1), else int64, and come back
    as float64 with inf, as SciPy returns them, unless `requested` names a type."""
    if requested is not None:
        dtype = np.dtype(requested)
        if dtype not in KERNEL_TYPES:
            raise ValueError(f"dtype={dtype}: expected int32, int64, float32 or float64")
        return dtype, dtype
    kind = weights.dtype.kind
    if kind == "f":
        single = weights.dtype.itemsize <= 4
        dtype = np.dtype(np.float32 if single else np.float64)
        return dtype, dtype
    largest = 1 if unweighted or weights.size == 0 else int(np.abs(weights.astype(np.int64)).max())
    return _integer_type(largest, n, weights.dtype)


def _integer_type(largest, n, dtype):
    worst = max(n - 1, 1) * largest
    if worst < INF32:
        return np.dtype(np.int32), np.dtype(np.float64)
    if dtype != np.uint64 and worst < INF64:
        return np.dtype(np.int64), np.dtype(np.float64)
    return np.dtype(np.float64), np.dtype(np.float64)


def dense_fast(graph, unweighted, dtype, overwrite):
    """(graph, kernel type, output array) when the C extension can read the dense input itself
    (Solver.solve_dense: SciPy's dense meaning applied in its copy into the padded matrix, on
    every core), else None and weight_matrix's NumPy passes do it. Taken for a plain square
    ndarray of int32, int64, float32 or float64 in native byte order, any layout, solved in its
    own type (integers: the width compute_type picks). The output is the input itself with
    `overwrite` when it is C-ordered, writable and of the output type."""
    if type(graph) is not np.ndarray or graph.dtype not in KERNEL_TYPES:
        return None
    if graph.ndim != 2 or graph.shape[0] != graph.shape[1] or graph.size == 0:
        return None
    if dtype is not None and np.dtype(dtype) != graph.dtype:
        return None
    n = graph.shape[0]
    if dtype is not None or graph.dtype.kind == "f":
        kernel = graph.dtype
        out = kernel
    else:
        # The largest |w| off the diagonal bounds every distance; the diagonal's (ignored) can
        # only make the bound larger, and a larger bound only picks int64 where int32 would do.
        largest = 1 if unweighted else max(int(graph.max()), -int(graph.min()))
        kernel, out = _integer_type(largest, n, graph.dtype)
        if kernel.kind != "i":
            return None
    in_place = (
        overwrite and graph.dtype == out and graph.flags.c_contiguous and graph.flags.writeable
    )
    return graph, kernel, graph if in_place else np.empty((n, n), dtype=out)


def _cast_weights(values, dtype):
    if dtype.kind == "i" and values.dtype.kind == "f" and not np.all(values == np.rint(values)):
        raise ValueError(f"dtype={dtype}: the graph has weights that are not integers")
    return values.astype(dtype, copy=False)


def weight_matrix(graph, directed, unweighted, dtype, overwrite):
    """(matrix, kernel type, output type): the dense matrix to solve, of the kernel type, with
    the type's unreachable marker off the edges and 0 on the diagonal. With `overwrite`, a dense
    C-ordered input of the kernel type is that matrix."""
    if is_sparse(graph):
        n, row, col, data = _edges_of_sparse(graph)
        kernel, out = compute_type(data, n, dtype, unweighted)
        w = np.full((n, n), unreachable(kernel), dtype=kernel)
        w[row, col] = 1 if unweighted else _cast_weights(data, kernel)
    else:
        a, mask = _edges_of_dense(graph)
        n = a.shape[0]
        kernel, out = compute_type(a[mask], n, dtype, unweighted)
        in_place = (
            overwrite
            and isinstance(graph, np.ndarray)
            and a is graph
            and a.dtype == kernel
            and a.flags.c_contiguous
            and a.flags.writeable
        )
        w = a if in_place else np.empty((n, n), dtype=kernel)
        if unweighted:
            w[mask] = 1
        elif not in_place:
            w[mask] = _cast_weights(a[mask], kernel)
        w[~mask] = unreachable(kernel)
    if not directed:
        np.minimum(w, w.T.copy(), out=w)
    np.fill_diagonal(w, 0)
    return w, kernel, out


def csr_of(w):
    """The edges of a weight matrix (off the diagonal, not the marker) in compressed sparse
    rows: int64 row pointers, int32 columns and the weights, as apsp_predecessors_csr takes."""
    marker = unreachable(w.dtype)
    mask = w != marker if w.dtype.kind == "i" else np.isfinite(w)
    np.fill_diagonal(mask, False)
    indptr = np.zeros(w.shape[0] + 1, dtype=np.int64)
    np.cumsum(mask.sum(axis=1), out=indptr[1:])
    indices = np.nonzero(mask)[1].astype(np.int32)
    return indptr, indices, np.ascontiguousarray(w[mask])


def output(d, out):
    """The solved matrix in the output type: integer markers become inf in a float output."""
    if d.dtype == out:
        return d
    result = d.astype(out)
    if d.dtype.kind == "i" and out.kind == "f":
        result[d == unreachable(d.dtype)] = np.inf
    return result
