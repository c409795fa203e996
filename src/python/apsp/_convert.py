"""SciPy csgraph's meaning of a graph, made into the dense matrix that apsp._core solves.

SciPy 1.10's ``floyd_warshall`` (checked against it in tests/python/):

- dense input: zeros, ``inf`` (either sign) and ``nan`` off the diagonal are no edge, and so
  is every float weight with |w| <= 1e-8 (subnormals included: SciPy finds its null value 0
  with ``np.ma.masked_values``, whose ``isclose`` has ``atol=1e-8``); masked entries of a masked
  array too (there the mask alone, as SciPy reads it);
- sparse input: every explicit entry is an edge, explicit zeros included (weight 0); ``inf`` and
  ``nan`` entries are none; repeated entries of a CSR/CSC matrix keep the least (apsp does the
  same for COO, which SciPy refuses);
- a pydata/sparse array (``sparse.COO``, ``sparse.GCXS``), as SciPy >= 1.11 reads it: its stored
  entries, through ``to_scipy_sparse``, where a stored 0 is no edge (SciPy's floyd_warshall gives
  0 its dense meaning in any graph not of scipy.sparse), nor inf or nan; a fill value other than
  0, inf or nan refused;
- self-loops are ignored: the diagonal starts at 0;
- ``directed=False``: an edge either way, the least weight of the two;
- ``unweighted=True``: every edge weighs 1.
"""

import sys

import numpy as np

from . import _core

INF32 = _core.INF32
INF64 = _core.INF64

# SciPy's dense null value 0 is found with np.ma.masked_values (np.isclose, atol=1e-8): a float
# weight of |w| <= 1e-8 is no edge in a dense graph, a subnormal too (tests/python/test_parity.py).
DENSE_NULL_TOLERANCE = 1e-8

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


def _is_pydata_sparse(graph):
    """Whether the graph is a pydata/sparse array. (The module is not imported here: an array
    of it exists only once the caller imported it.)"""
    base = getattr(sys.modules.get("sparse"), "SparseArray", None)
    return base is not None and isinstance(graph, base)


def _scipy_of_pydata(graph):
    """A pydata/sparse array's stored entries as a SciPy CSR or CSC matrix, as SciPy's csgraph
    (>= 1.11) converts it (scipy.sparse._sputils.convert_pydata_sparse_to_scipy): a fill value
    other than the dense no-edge values (0, inf, nan) refused with ValueError."""
    try:
        graph = graph.to_scipy_sparse(accept_fv=[0, np.inf, np.nan])
    except TypeError:  # pydata/sparse before 0.15.4 (Debian 12 has 0.13): a fill value of 0 only
        graph = graph.to_scipy_sparse()
    return graph if graph.format in ("csr", "csc") else graph.tocsc()


def _edges_of_dense(graph):
    """The input as an ndarray (of a masked array, its data itself, which SciPy's overwrite
    writes into) and the mask of its edges (self-loops included)."""
    hidden = np.ma.getmaskarray(graph) if isinstance(graph, np.ma.MaskedArray) else None
    a = np.asarray(np.ma.getdata(graph))
    if a.dtype.kind not in "biuf":
        a = a.astype(np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("graph should be a square array")
    if hidden is not None:  # a masked array: its mask, and 0, nan or inf as no edge
        mask = ~hidden & (a != 0)
        if a.dtype.kind == "f":
            mask &= np.isfinite(a)
        return a, mask
    if a.dtype.kind != "f":
        return a, a != 0
    return a, (np.abs(a) > DENSE_NULL_TOLERANCE) & ~np.isinf(a)


def _edges_of_sparse(graph, zero_is_edge=True):
    """Row, column and weight of each edge, the least of repeated ones, self-loops dropped;
    entries of 0 too unless `zero_is_edge`."""
    if graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
        raise ValueError("graph should be a square array")
    canonical = _canonical_compressed(graph)
    if canonical is not None:
        row, col, data = canonical
    else:
        coo = graph.tocoo()  # (keeps repeated entries: tocsr would add them up)
        row, col, data = coo.row, coo.col, np.asarray(coo.data)
    if data.dtype.kind not in "biuf":
        data = data.astype(np.float64)
    keep = row != col
    if not zero_is_edge:
        keep &= data != 0
    if data.dtype.kind == "f":
        keep &= np.isfinite(data)
    if canonical is not None:  # no entry twice: nothing to sort or merge
        return graph.shape[0], row[keep], col[keep], data[keep]
    row = np.asarray(row[keep], dtype=np.int64)
    col = np.asarray(col[keep], dtype=np.int64)
    data = data[keep]
    order = np.lexsort((data, col, row))
    row, col, data = row[order], col[order], data[order]
    first = np.ones(len(row), dtype=bool)
    first[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
    return graph.shape[0], row[first], col[first], data[first]


def _canonical_compressed(graph):
    """(row, col, data) straight from a CSR or CSC matrix in canonical format (sorted indices,
    no entry twice: SciPy keeps the flag), where no entry needs merging, so neither a COO copy
    nor a sort (two thirds of a one-source call on a 300 x 300 grid) is needed; else None."""
    if getattr(graph, "format", None) not in ("csr", "csc") or not graph.has_canonical_format:
        return None
    n = graph.shape[0]
    index = np.int32 if n < 2**31 else np.int64
    counts = np.diff(graph.indptr)
    major = np.repeat(np.arange(n, dtype=index), counts)
    minor = np.asarray(graph.indices, dtype=index)
    if graph.format == "csr":
        return major, minor, np.asarray(graph.data)
    return minor, major, np.asarray(graph.data)


def compute_type(weights, n, requested, unweighted):
    """(kernel type, output type): floats keep their precision; integers (bool and every width,
    signed or not) come back as float64 with inf, as SciPy returns them, solved as
    _integer_type says, unless `requested` names a type."""
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
    largest = 1 if unweighted or weights.size == 0 else _largest(weights)
    return _integer_type(largest, n)


def whole_number_type(weights, n):
    """The kernel type for float64 weights whose distances are float64 sums (NetworkX's): whole
    numbers as _integer_type says (exact integers that are the same numbers), others float64."""
    if np.all(weights == np.rint(weights)):
        return _integer_type(_largest(weights) if weights.size else 1, n)[0]
    return np.dtype(np.float64)


def _largest(weights):
    """max |w| of integer or whole-number weights, as a Python int: no wrap at -2^63 or past
    2^63 (uint64), where NumPy's abs and int64 casts wrap."""
    return max(int(weights.max()), -int(weights.min()))


def _largest_dense(graph, threads):
    """_largest of a dense int32 or int64 array, read once on `threads` threads (0: one per
    core) by the extension instead of NumPy's two passes on one core."""
    least, most = _core.extremes(graph, threads)
    return max(most, -least)


# The most (n - 1) * max |w| may be for an integer kernel to give SciPy's float64 numbers: each
# sum Floyd-Warshall forms (two distances of at most that) stays a whole number <= 2^53, where
# SciPy's float64 arithmetic is exact too. Past it SciPy rounds weights and sums, and so must
# apsp: it solves in float64 from the weights rounded as SciPy rounds them.
EXACT_IN_FLOAT64 = 2**52


def _integer_type(largest, n):
    """(kernel type, float64) for whole-number weights of magnitude at most `largest`: int32 when
    no distance can reach its marker ((n - 1) * largest < 2^30 - 1), int64 while float64 sums
    stay exact, else float64."""
    worst = max(n - 1, 1) * largest
    if worst < INF32:
        return np.dtype(np.int32), np.dtype(np.float64)
    if worst <= EXACT_IN_FLOAT64:
        return np.dtype(np.int64), np.dtype(np.float64)
    return np.dtype(np.float64), np.dtype(np.float64)


def _overwritable(a, out, overwrite):
    """Whether overwrite=True puts the result into the caller's array `a`, as SciPy does it: a
    writable C-ordered float64 array, of a float64 result. (SciPy never writes into another type;
    into a float64 array of another layout it writes its no-edge markers, then fails to solve:
    apsp leaves that one alone.)"""
    return bool(
        overwrite
        and a.dtype == np.float64
        and out == np.float64
        and a.flags.c_contiguous
        and a.flags.writeable
    )


def dense_fast(graph, unweighted, dtype, overwrite, threads=0):
    """(graph, kernel type, output array) when the C extension can read the dense input itself
    (Solver.solve_dense: SciPy's dense meaning applied in its copy into the padded matrix, on
    every core), else None and weight_matrix's NumPy passes do it. Taken for a plain square
    ndarray of int32, int64, float32 or float64 in native byte order, any layout, solved in its
    own type (integers: the width compute_type picks, when it picks an integer). The output is
    the input itself where _overwritable says."""
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
        largest = 1 if unweighted else _largest_dense(graph, threads)
        kernel, out = _integer_type(largest, n)
        if kernel.kind != "i":
            return None
    in_place = _overwritable(graph, out, overwrite)
    return graph, kernel, graph if in_place else np.empty((n, n), dtype=out)


def csr_fast(graph, unweighted, dtype):
    """(indptr, indices, data, kernel type, output array, columns) when the C extension can read
    a SciPy CSR or CSC graph itself (Solver.solve_csr: SciPy's sparse reading done in its copy
    into the padded matrix, no dense NumPy matrix made), else None and weight_matrix's NumPy
    passes do it. Taken for data of int32, int64, float32 or float64 in native byte order, solved
    in its own type (integers: the width compute_type picks, when it picks an integer; the
    largest |w| of every entry, self-loops included, only bounds it higher), with no dtype asked.
    columns: a CSC graph, whose indptr runs over columns."""
    if dtype is not None or getattr(graph, "format", None) not in ("csr", "csc"):
        return None
    if not is_sparse(graph) or graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
        return None
    n = graph.shape[0]
    data = graph.data
    if n == 0 or data.dtype not in KERNEL_TYPES:
        return None
    if data.dtype.kind == "f":
        kernel = out = data.dtype
    else:
        largest = 1 if unweighted or data.size == 0 else _largest(data)
        kernel, out = _integer_type(largest, n)
        if kernel.kind != "i":
            return None
    d = np.empty((n, n), dtype=out)
    return graph.indptr, graph.indices, data, kernel, d, graph.format == "csc"


def _cast_weights(values, dtype):
    """The weights in the kernel type. A requested type refuses what its cast would change
    (compute_type's own choices always fit): in an integer type a fraction, or a magnitude that
    reaches the type's unreachable marker (NumPy would wrap it); in float32 a weight past its
    range (NumPy would make it inf, no edge)."""
    if dtype.kind == "i":
        if values.dtype.kind == "f" and not np.all(values == np.rint(values)):
            raise ValueError(f"dtype={dtype}: the graph has weights that are not integers")
        largest = _largest(values) if values.size else 0
        if largest >= unreachable(dtype):
            raise ValueError(
                f"dtype={dtype}: a weight of magnitude {largest} does not fit "
                f"(|w| < {unreachable(dtype)}, the type's unreachable marker)"
            )
    with np.errstate(over="ignore"):
        cast = values.astype(dtype, copy=False)
    if dtype.kind == "f" and not np.all(np.isfinite(cast)):
        raise ValueError(f"dtype={dtype}: the graph has weights past the type's range")
    return cast


def weight_matrix(graph, directed, unweighted, dtype, overwrite):
    """(matrix, kernel type, output type): the dense matrix to solve, of the kernel type, with
    the type's unreachable marker off the edges and 0 on the diagonal. With `overwrite`, the
    caller's array where _overwritable says is that matrix."""
    pydata = _is_pydata_sparse(graph)
    if pydata:
        graph = _scipy_of_pydata(graph)
    if is_sparse(graph):
        n, row, col, data = _edges_of_sparse(graph, zero_is_edge=not pydata)
        kernel, out = compute_type(data, n, dtype, unweighted)
        w = np.full((n, n), unreachable(kernel), dtype=kernel)
        w[row, col] = 1 if unweighted else _cast_weights(data, kernel)
    else:
        a, mask = _edges_of_dense(graph)
        n = a.shape[0]
        kernel, out = compute_type(a[mask], n, dtype, unweighted)
        # (a is the caller's memory, or a masked array's data, unless NumPy made a copy)
        in_place = (
            isinstance(graph, np.ndarray)
            and np.may_share_memory(a, graph)
            and _overwritable(a, out, overwrite)
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
