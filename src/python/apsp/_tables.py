"""apsp.from_pandas and apsp.from_arrow: an edge list with named vertices in, the long table
(source, target, distance) with the caller's labels out (issue 40, item 3).

The labels are numbered once (pandas.factorize, pyarrow's dictionary_encode), the weights read
as NumPy views where the column allows, the graph handed to apsp.shortest_path as a SciPy CSR
matrix (its method='auto', the package's own choice), and the table built from the finite
distances with NumPy alone. pandas and pyarrow are imported only when called: neither is a
requirement of the package.
"""

import numpy as np

# Distances held at once: a block of source rows of at most this many float64 entries (256 MiB),
# so that a large V with few reachable pairs does not hold the whole S x V matrix.
BLOCK_ENTRIES = 1 << 25


def _weights(values, column):
    """The weights as a numeric NumPy array (no copy when already one), refusing what no
    weight can be, by the column's name."""
    w = np.asarray(values)
    if w.dtype.kind not in "iuf":
        raise ValueError(f"weight column '{column}' is not numeric ({w.dtype})")
    if w.dtype.kind == "f" and np.isnan(w).any():
        raise ValueError(f"weight column '{column}' has a NaN weight")
    return w


def _least_edges(row, col, w):
    """The edges with a repeated (row, col) reduced to the least weight: a CSR matrix built from
    them would sum repeats, where the package keeps the least (docs/python.md)."""
    order = np.lexsort((w, col, row))
    row, col, w = row[order], col[order], w[order]
    first = np.ones(len(row), dtype=bool)
    first[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
    return row[first], col[first], w[first]


def _check_limit(limit):
    if limit is None:
        limit = np.inf
    limit = float(limit)
    if not limit >= 0:  # (nan too)
        raise ValueError("limit must be >= 0")
    # (inf, the unreached, is never <= a finite limit: one comparison keeps the pairs)
    return min(limit, np.finfo(np.float64).max)


def solve(row, col, w, n, directed, limit, starts, solver):
    """(source numbers, target numbers, distances) of every pair with a path of length <= limit
    from the vertex numbers `starts`, in the order of starts then of target numbers."""
    from scipy.sparse import csr_matrix

    from ._solve import default_solver

    row, col, w = _least_edges(row, col, w)
    graph = csr_matrix((w, (row, col)), shape=(n, n))
    solver = default_solver() if solver is None else solver
    pieces = []
    step = max(1, BLOCK_ENTRIES // max(n, 1))
    for first in range(0, len(starts), step):  # (a loop over blocks of sources, not pairs)
        block = starts[first:first + step]
        dist = solver.shortest_path(graph, directed=directed, indices=block)
        keep = dist <= limit
        i, j = np.nonzero(keep)
        pieces.append((block[i], j, dist[keep]))  # (a mask gathers in nonzero's order)
    if not pieces:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    if len(pieces) == 1:  # (no copy of a table that fits one block)
        return pieces[0]
    return tuple(np.concatenate(p) for p in zip(*pieces))


def _starts(found, sources, n):
    """The vertex numbers of the `sources` labels (every vertex for None), refusing a label the
    edges do not name."""
    if sources is None:
        return np.arange(n, dtype=np.int64)
    found = np.asarray(found, dtype=np.int64)
    if np.any(found < 0):
        missing = [s for s, f in zip(sources, found) if f < 0][0]
        raise ValueError(f"sources: {missing!r} is no vertex of the edges")
    return found


def _labels_list(sources):
    """sources as a list of labels: one label (a string, a number) is a list of one."""
    if sources is None:
        return None
    if isinstance(sources, (str, bytes)) or np.ndim(sources) == 0:
        return [sources]
    return list(sources)


def _column(names, name):
    if name not in names:
        raise ValueError(f"no column '{name}' (columns: {', '.join(map(str, names))})")


def from_pandas(df, source="source", target="target", weight="weight", directed=True,
                limit=None, sources=None, *, solver=None):
    import pandas as pd

    for name in (source, target) + (() if weight is None else (weight,)):
        _column(list(df.columns), name)
    for name in (source, target):
        if df[name].isna().any():
            raise ValueError(f"column '{name}' has a missing label")
    m = len(df)
    codes, uniques = pd.factorize(pd.concat([df[source], df[target]], ignore_index=True))
    if weight is None:
        w = np.ones(m, dtype=np.int64)
    else:
        s = df[weight]
        if s.isna().any():
            raise ValueError(f"weight column '{weight}' has a NaN weight")
        numpy_type = getattr(s.dtype, "numpy_dtype", None)  # (pandas' nullable Int64, Float64)
        w = _weights(s.to_numpy(dtype=numpy_type), weight)
    sources = _labels_list(sources)
    n = len(uniques)
    starts = _starts(None if sources is None else pd.Index(uniques).get_indexer(sources),
                     sources, n)
    i, j, d = solve(codes[:m], codes[m:], w, n, directed, _check_limit(limit), starts, solver)
    return pd.DataFrame({"source": uniques.take(i), "target": uniques.take(j), "distance": d})


def _arrow_labels(table, source, target):
    """(codes of the source then target labels, the labels) of one dictionary_encode over both
    columns."""
    import pyarrow as pa

    a, b = table.column(source), table.column(target)
    # (a dictionary column, pandas' categorical, as its values: each chunk has its own dictionary)
    a, b = (c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in (a, b))
    if b.type != a.type:
        try:
            b = b.cast(a.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise ValueError(f"columns '{source}' and '{target}' hold different types "
                             f"({a.type}, {b.type})") from None
    both = pa.chunked_array(a.chunks + b.chunks, type=a.type).combine_chunks()
    encoded = both.dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary


def from_arrow(table, source="source", target="target", weight="weight", directed=True,
               limit=None, sources=None, *, solver=None):
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in (source, target) + (() if weight is None else (weight,)):
        _column(table.column_names, name)
    for name in (source, target):
        if table.column(name).null_count:
            raise ValueError(f"column '{name}' has a missing label")
    m = table.num_rows
    codes, labels = _arrow_labels(table, source, target)
    if weight is None:
        w = np.ones(m, dtype=np.int64)
    else:
        column = table.column(weight)
        if column.null_count:
            raise ValueError(f"weight column '{weight}' has a missing weight")
        if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
            raise ValueError(f"weight column '{weight}' is not numeric ({column.type})")
        w = _weights(column.to_numpy(), weight)  # (a view when the column has one chunk)
    sources = _labels_list(sources)
    n = len(labels)
    found = None
    if sources is not None:
        try:
            wanted = pa.array(sources, type=labels.type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
            raise ValueError(f"sources: not labels of the type {labels.type}") from None
        found = pc.index_in(wanted, value_set=labels).fill_null(-1).to_numpy()
    starts = _starts(found, sources, n)
    i, j, d = solve(codes[:m], codes[m:], w, n, directed, _check_limit(limit), starts, solver)
    return pa.table({"source": labels.take(pa.array(i)), "target": labels.take(pa.array(j)),
                     "distance": pa.array(d)})


_COMMON = """
    Every label in either column is a vertex; a repeated edge keeps its least weight;
    self-loops are ignored. The graph is solved by apsp.shortest_path (its method='auto', on
    the sparse methods of the host threads), in blocks of sources, so that memory holds at most
    about 2^25 distances at a time besides the table. Negative weights follow shortest_path's
    rules: allowed (Johnson's method), NegativeCycleError on a negative cycle (an undirected
    negative edge is one).

    Parameters
    ----------
    {what}
    source, target : str, optional
        The columns of the edges' ends: labels of any hashable type (strings, int64 or uint64
        ids past 2^31, ...), both columns of one type.
    weight : str or None, optional
        The column of the weights (integer or floating-point); None: every edge weighs 1.
    directed : bool, optional
        False: every edge goes both ways.
    limit : float, optional
        Keep only the pairs of distance <= limit (as SciPy's dijkstra's limit); None keeps
        every reachable pair; < 0 or nan is refused.
    sources : label or list-like of labels, optional
        The rows' sources, in this order (None: every vertex, in order of first appearance).
    solver : apsp.Solver, optional
        Where to solve (None: the default Solver).

    Returns
    -------
    {returns}
        Columns source and target (the caller's labels, the columns' type) and distance
        (float64; whole-number weights give exact sums), one row per reachable pair, the source
        itself included (distance 0); unreachable pairs are left out.

    Raises
    ------
    ValueError
        A missing column, a missing label, a non-numeric, missing or NaN weight (named by the
        column), a source not in the edges, or a bad limit.
    apsp.NegativeCycleError
        A negative cycle.
    """
from_pandas.__doc__ = """Shortest distances between named vertices of a pandas DataFrame.
""" + _COMMON.format(what="df : pandas.DataFrame\n        The edges, a row each.",
                     returns="pandas.DataFrame")
from_arrow.__doc__ = """Shortest distances between named vertices of a pyarrow Table.
""" + _COMMON.format(what="table : pyarrow.Table\n        The edges, a row each.",
                     returns="pyarrow.Table")
