"""Many small graphs in one call (apsp_solver_solve_batch): floyd_warshall_batch, as graph
transformers (Graphormer's spatial encoding) solve every graph of a dataset, and edge_paths, the
edges of each pair's shortest path (Graphormer's edge encoding)."""

import re
import sys
from itertools import chain
from operator import attrgetter

import numpy as np

from . import _convert
from ._solve import default_solver, log

_TYPES = {np.dtype(t): t for t in (np.int32, np.int64, np.float32, np.float64)}


def _array(x):
    """x as a NumPy array without a copy: an ndarray as it is, a tensor of the host (PyTorch,
    CuPy's host arrays, JAX's on the CPU) through DLPack, anything else through np.asarray."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return np.asarray(x)


def _as_like(result, like):
    """result as the caller's array type: like's package's from_dlpack (torch.from_dlpack,
    cupy.from_dlpack, ...), which takes the NumPy array without a copy where it can."""
    if like is None or isinstance(like, np.ndarray):
        return result
    package = sys.modules.get(type(like).__module__.split(".")[0])
    convert = getattr(package, "from_dlpack", None)
    if convert is None:
        raise TypeError(f"like={type(like).__name__}: its package has no from_dlpack")
    return convert(np.ascontiguousarray(result))


def _counts(num_nodes, batch, edge_index):
    """The vertices of each graph: num_nodes (one count per graph), or PyG's batch vector
    (vertex -> graph, graphs contiguous), or one graph of every vertex edge_index names."""
    if num_nodes is not None:
        counts = np.asarray(_array(num_nodes), dtype=np.int64).reshape(-1)
    elif batch is not None:
        graph_of = _array(batch).astype(np.int64, copy=False).reshape(-1)
        if graph_of.size and np.any(graph_of[1:] < graph_of[:-1]):
            raise ValueError("batch: the vertices of each graph must be contiguous, in order")
        counts = np.bincount(graph_of, minlength=int(graph_of[-1]) + 1 if graph_of.size else 0)
    else:
        counts = np.array([int(edge_index.max()) + 1 if edge_index.size else 0], dtype=np.int64)
    if np.any(counts < 0):
        raise ValueError("num_nodes: a graph cannot have a negative number of vertices")
    return counts.astype(np.int64, copy=False)


def _grouped(source, target, weight, counts):
    """((source, target, weight) with the edges stably sorted by graph, the sort's order), or
    None when they already were."""
    starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    graph = np.searchsorted(starts, source, side="right") - 1
    if not graph.size or np.all(graph[1:] >= graph[:-1]):
        return None
    order = np.argsort(graph, kind="stable")
    weight = None if weight is None else weight[order]
    return (source[order], target[order], weight), order


def _solve(solver, cells, counts, pitch, pred, edges, undirected):
    """The extension's solve_batch through solver._call (its lock, the library's log, errors as
    the package's exceptions) on edges = (source, target, weight), with no `first`: the library
    finds each graph's first edge on its threads, the edges grouped by graph as PyG batches them
    (NumPy's searchsorted of the graphs' first vertices took a third of a 10^6-graph call on a GPU
    host). Edges not grouped, which it refuses, are sorted and solved again, a refused edge then
    named by the caller's column."""
    solve = solver._open().solve_batch
    try:
        return solver._call(None, solve, cells, counts, pitch, pred, *edges, None, undirected)
    except ValueError:
        regrouped = _grouped(*edges, counts)
        if regrouped is None:
            raise
    sorted_edges, order = regrouped
    try:
        return solver._call(None, solve, cells, counts, pitch, pred, *sorted_edges, None,
                            undirected)
    except ValueError as error:
        column = lambda m: f"edge {order[int(m.group(1))]} "
        raise ValueError(re.sub(r"\bedge (\d+) ", column, str(error), count=1)) from None


def _joined(arrays):
    """np.concatenate(arrays) for many small 1-D arrays: where they share one dtype, joined as
    bytes (a third of concatenate's time for 100,000 CSR matrices' arrays, which it checks and
    casts one by one); else, or where one is not contiguous, by concatenate. Read-only."""
    dtypes = set(map(attrgetter("dtype"), arrays))
    if len(dtypes) == 1:
        try:
            return np.frombuffer(b"".join(arrays), dtypes.pop())
        except (BufferError, TypeError, ValueError):  # a strided view: no simple buffer
            pass
    return np.concatenate(arrays)


def _from_sparse(graphs):
    """A list of SciPy sparse matrices (or arrays) as one batch's edges, as SciPy reads each:
    every stored entry an edge, zeros included; NaN and infinite entries none. A pass of
    attribute reads over the list, the rest over the batch's joined arrays (a NumPy call a
    matrix costs more than its graph's solve). Refuses a matrix that is not square, or whose
    indptr does not fit its rows and entries (as SciPy's csr_matrix checks its format)."""
    mats = [g if g.format == "csr" else g.tocsr() for g in graphs]
    shapes = np.fromiter(chain.from_iterable(map(attrgetter("shape"), mats)), np.int64,
                         2 * len(mats)).reshape(-1, 2)
    wrong = np.flatnonzero(shapes[:, 0] != shapes[:, 1])
    if wrong.size:
        shape = tuple(shapes[wrong[0]].tolist())  # (Python ints: NumPy 2 prints np.int64(2))
        raise ValueError(f"graphs: a matrix of shape {shape} is not square")
    counts = shapes[:, 0].copy()
    if not mats:
        return counts, np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    indices, data = list(map(attrgetter("indices"), mats)), list(map(attrgetter("data"), mats))
    indptr = _joined(list(map(attrgetter("indptr"), mats)))
    ends = np.cumsum(counts + 1)  # each matrix's indptr ends before ends[g]
    stored = np.fromiter(map(len, indices), np.int64, len(mats))
    if indptr.size != ends[-1] or np.any(indptr[ends - counts - 1] != 0) or np.any(
            indptr[ends - 1] > stored) or np.any(np.fromiter(map(len, data), np.int64,
                                                             len(mats)) != stored):
        raise ValueError("graphs: a matrix's indptr does not fit its rows and entries")
    entries = np.delete(np.diff(indptr), ends[:-1] - 1)  # rows' entries, the seams left out
    if np.any(entries < 0):
        raise ValueError("graphs: a matrix's indptr decreases")
    nnz = indptr[ends - 1].astype(np.int64)
    if np.any(nnz != stored):  # entries past indptr[-1] are no part of the matrix
        indices = [ix[:k] for ix, k in zip(indices, nnz.tolist())]
        data = [d[:k] for d, k in zip(data, nnz.tolist())]
    starts = np.concatenate(([0], np.cumsum(counts)))
    source = np.repeat(np.arange(starts[-1], dtype=np.int64), entries)
    target = _joined(indices) + np.repeat(starts[:-1], nnz)
    weight = _joined(data)
    if weight.dtype.kind == "f":
        keep = np.isfinite(weight)
        if not keep.all():
            source, target, weight = source[keep], target[keep], weight[keep]
    return counts, source, target, weight


def _from_dense(graphs):
    """A list of dense matrices as one batch's edges, as SciPy reads each: 0, NaN and +-inf no
    edge."""
    arrays = [_array(g) for g in graphs]
    counts = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)))
    parts = []
    for a, base in zip(arrays, starts):
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise ValueError(f"graphs: an array of shape {a.shape} is not square")
        i, j = np.nonzero((a != 0) & (np.isfinite(a) if a.dtype.kind == "f" else True))
        parts.append((i + base, j + base, a[i, j]))
    pick = lambda k, t: np.concatenate([p[k] for p in parts]).astype(t) if parts else np.empty(0, t)
    kind = np.result_type(*[a.dtype for a in arrays]) if arrays else np.float64
    return counts, pick(0, np.int64), pick(1, np.int64), pick(2, kind)


def _solve_type(weight, counts, dtype, unweighted, predecessors):
    """(the solve's type, the result's type): dtype when given; else SciPy's result type
    (float32 for float32 weights, float64 otherwise), solved in int32 (int64) where every
    weight is whole and every path within its rule, as the integers are exact and faster (and
    give SciPy's very predecessors). Edges of weight 1 without predecessors are solved in the
    result's type: the library counts their hops into it directly (drivers/batch_hops.c), where
    an int32 solve would be converted after."""
    if dtype is not None:
        kind = np.dtype(dtype)
        if kind not in _TYPES:
            raise ValueError(f"dtype={dtype}: expected int32, int64, float32 or float64")
        return kind, kind
    single = weight is not None and weight.dtype == np.float32
    result = np.dtype(np.float32 if single else np.float64)
    if unweighted or weight is None or weight.size == 0:
        return np.dtype(np.int32) if predecessors else result, result
    if weight.dtype.kind in "iub" or np.all(np.mod(weight, 1) == 0):
        most = float(np.abs(weight).max()) * max(int(counts.max()) - 1, 1)
        exact = 2 * most <= (2**24 if single else 2**53)  # every sum of two distances exact
        if exact and most < _convert.INF32:
            return np.dtype(np.int32), result
        if exact:
            return np.dtype(np.int64), result
    return result, result


def floyd_warshall_batch(
    graphs=None,
    directed=True,
    unweighted=False,
    return_predecessors=False,
    max_distance=None,
    *,
    edge_index=None,
    edge_weight=None,
    num_nodes=None,
    batch=None,
    packed=False,
    dtype=None,
    like=None,
    out=None,
    solver=None,
):
    """All-pairs shortest paths of many graphs in one call, each as SciPy's floyd_warshall
    solves it alone.

    Give either ``graphs`` or a graph-learning batch (``edge_index`` with ``num_nodes`` or
    ``batch``). Arrays may be NumPy arrays or host tensors with ``__dlpack__`` (PyTorch, CuPy's
    host arrays), taken without a copy. There is no ``progress=``: the graphs are solved a
    graph per thread (on OpenCL, a work-group per graph), with no rounds to report
    (docs/python.md).

    Parameters
    ----------
    graphs : list of array_like or of sparse matrices, optional
        Square dense arrays (0, nan and inf: no edge) or SciPy sparse matrices (every stored
        entry an edge), each read as apsp.floyd_warshall reads it.
    directed : bool, optional
        False: edges go both ways.
    unweighted : bool, optional
        Every edge weighs 1.
    return_predecessors : bool, optional
        Also return the predecessors.
    max_distance : float, optional
        Graphormer's clipping: every distance above it, and every unreachable pair, becomes it
        (Graphormer's 510 with ``max_distance=510``).
    edge_index : array_like, optional
        2 x E integers, the edges, vertices numbered over the whole batch; in any order.
    edge_weight : array_like, optional
        E weights (None: every edge weighs 1).
    num_nodes : array_like, optional
        The vertices of each graph (None: ``batch``, or one graph of every vertex
        ``edge_index`` names).
    batch : array_like, optional
        PyG's batch vector: vertex -> graph, the graphs' vertices contiguous.
    packed : bool or "flat", optional
        True: lists of per-graph arrays, views of one buffer, instead of padded arrays.
        ``"flat"``: that buffer itself, one 1-D array of every graph's (sizes[g], sizes[g])
        block, row-major, one after another: graph g's at ``dist[offsets[g]:offsets[g + 1]]``
        with ``offsets = np.concatenate(([0], np.cumsum(sizes * sizes)))``, as PyG batches
        tensors of different sizes; no per-graph arrays made (for 100,000 small graphs their
        views take longer than the solve).
    dtype : {None, int32, int64, float32, float64}, optional
        Solve and return this type (integer results hold apsp.INF32 or apsp.INF64 where there
        is no path).
    like : array, optional
        Return dist and pred as this array's type (its package's ``from_dlpack``:
        ``torch.from_dlpack`` for a tensor).
    out : ndarray, optional
        A writable array of dist's shape and type to fill, padded or (``packed="flat"``) flat,
        not with ``packed=True``; a C-contiguous one is solved into directly, so that a buffer
        reused from batch to batch costs neither fresh memory nor a copy (``buffer[:size]`` of
        a flat one large enough for any batch; after an error its contents are undefined).
    solver : apsp.Solver, optional
        The Solver (its backend and threads) to solve on; None: the default one.

    Returns
    -------
    dist : ndarray or list of ndarray
        Shape (B, Vmax, Vmax): graph g in ``dist[g, :sizes[g], :sizes[g]]``, the rest of its
        block unreachable; with ``packed=True`` a list of B arrays of (sizes[g], sizes[g]);
        with ``packed="flat"`` one 1-D array of those blocks.
        SciPy's type (float64, float32 for float32 weights; inf where there is no path) unless
        ``dtype`` says.
    pred : ndarray or list of ndarray
        int32 in dist's layout, SciPy's predecessors (-9999 for none) in graph-local vertex
        numbers; returned with ``return_predecessors=True`` only.
    sizes : ndarray
        int64, the vertices of each graph.

    Raises
    ------
    ValueError
        An edge outside its graph's vertices, a weight that is not a finite number, or
        arguments that do not fit together.
    apsp.NegativeCycleError
        A graph has a negative cycle (the message names it).
    """
    solver = solver or default_solver()
    if edge_index is not None:
        edges = _array(edge_index)
        if edges.ndim != 2 or edges.shape[0] != 2:
            raise ValueError(f"edge_index: expected shape (2, E), got {edges.shape}")
        counts = _counts(num_nodes, batch, edges)
        source = edges[0].astype(np.int64, copy=False)
        target = edges[1].astype(np.int64, copy=False)
        weight = None if edge_weight is None else _array(edge_weight).reshape(-1)
    elif graphs is not None:
        graphs = list(graphs)
        sparse = bool(graphs) and all(hasattr(t, "tocsr") for t in set(map(type, graphs)))
        counts, source, target, weight = (_from_sparse if sparse else _from_dense)(graphs)
    else:
        raise TypeError("floyd_warshall_batch() needs graphs or edge_index")
    if unweighted:
        weight = None
    if packed not in (False, True, "flat"):
        raise ValueError(f"packed={packed!r}: expected False, True or 'flat'")
    if packed is True and out is not None:
        raise ValueError("out= and packed=True: out fills a padded or flat result, packed "
                         "returns views of its own")
    kernel, result = _solve_type(weight, counts, dtype, unweighted, return_predecessors)
    if weight is not None and weight.size and np.all(weight == 1):
        weight = None  # the edges of an unweighted graph (the library's search of hops)
    if weight is not None:
        if weight.dtype.kind == "f" and not np.all(np.isfinite(weight)):
            raise ValueError("edge_weight: every weight must be a finite number")
        if kernel.kind == "i" and weight.dtype.kind == "f" and np.any(np.mod(weight, 1) != 0):
            raise ValueError(f"dtype={kernel}: the weights must be whole numbers")
        weight = np.ascontiguousarray(weight, dtype=kernel)
    pitch = 0 if packed else int(counts.max()) if counts.size else 0
    shape = int(counts @ counts) if packed else counts.size * pitch * pitch
    layout = (shape,) if packed else (counts.size, pitch, pitch)  # (packed: "flat" here)
    filled = None if out is None or kernel != result else _fillable(out, kernel, layout)
    cells = np.empty(shape, dtype=kernel) if filled is None else filled.reshape(-1)
    pred = np.empty(shape, dtype=np.int32) if return_predecessors else None
    edges = (np.ascontiguousarray(source), np.ascontiguousarray(target), weight)
    report = _solve(solver, cells, counts, pitch, pred, edges, not directed)
    log.info("batch of %d graphs (V <= %d) on %s, %s: compute %.3f s", counts.size,
             int(counts.max()) if counts.size else 0, report.get("backend"), report.get("device"),
             report.get("compute_seconds", 0.0))
    dist = _finish(cells, kernel, result, max_distance)
    return _shaped(dist, pred, counts, pitch, packed, like, out, filled is not None)


def _fillable(out, dtype, shape):
    """out= as an array the solve can write into (C-contiguous, writable, of the result's type
    and shape): a buffer reused from call to call then costs no fresh pages and no copy; else
    None, and the result is copied into out after the solve."""
    target = np.asarray(out)
    flags = target.flags
    if target.shape == shape and target.dtype == dtype and flags.c_contiguous and flags.writeable:
        return target
    return None


def _finish(cells, kernel, result, max_distance):
    """The solved cells in the result's type: the integer marker inf for a float result; then
    clipped at max_distance."""
    if kernel != result:
        marker = _convert.INF32 if kernel == np.int32 else _convert.INF64
        dist = cells.astype(result)
        dist[cells == marker] = np.inf
    else:
        dist = cells
    if max_distance is not None:
        np.minimum(dist, dist.dtype.type(max_distance), out=dist)
    return dist


def _into(out, dist, filled):
    """dist in out= (checked: its shape and type), copied there unless the solve wrote there."""
    target = np.asarray(out)
    if target.shape != dist.shape or target.dtype != dist.dtype:
        raise ValueError(f"out: expected {dist.dtype} of shape {dist.shape}")
    if not filled:
        target[...] = dist
    return out


def _shaped(dist, pred, counts, pitch, packed, like, out, filled=False):
    if packed == "flat":
        dist = _into(out, dist, filled) if out is not None else _as_like(dist, like)
        return (dist, counts) if pred is None else (dist, _as_like(pred, like), counts)
    if packed:
        # Python's ints, the bounds worked out before the loop: a view a graph is the time
        # (0.3 us each: 100,000 graphs' views take longer than their solve on 16 threads)
        sizes = counts.tolist()
        ends = np.cumsum(counts * counts)
        begins, ends = (ends - counts * counts).tolist(), ends.tolist()
        split = lambda a: [a[b:e].reshape(n, n) for b, e, n in zip(begins, ends, sizes)]
        convert = (lambda views: views) if like is None or isinstance(like, np.ndarray) else (
            lambda views: [_as_like(v, like) for v in views])
        dists = convert(split(dist))
        preds = None if pred is None else convert(split(pred))
        return (dists, counts) if pred is None else (dists, preds, counts)
    dist = dist.reshape(counts.size, pitch, pitch)
    dist = _into(out, dist, filled) if out is not None else _as_like(dist, like)
    if pred is None:
        return dist, counts
    return dist, _as_like(pred.reshape(dist.shape), like), counts


def edge_paths(pred, edge_index, max_length, *, num_nodes=None, batch=None, directed=True):
    """The edges of each pair's shortest path, from its source, as Graphormer's edge encoding
    takes them.

    Parameters
    ----------
    pred : array_like
        floyd_warshall_batch's padded predecessors, (B, Vmax, Vmax).
    edge_index : array_like
        2 x E integers, as given to floyd_warshall_batch.
    max_length : int
        The edges kept of each path, its first ones (Graphormer's ``multi_hop_max_dist``).
    num_nodes, batch : array_like, optional
        As given to floyd_warshall_batch.
    directed : bool, optional
        False: an edge serves both ways (its one column for either).

    Returns
    -------
    paths : ndarray
        int64 of shape ``pred.shape + (max_length,)``: entry [g, i, j, k] the column of
        edge_index holding the k-th edge of the path i -> j of graph g, -1 past the path's
        end, for i = j and for unreachable pairs. Of repeated edges, one.
    """
    pred = _array(pred)
    edges = _array(edge_index).astype(np.int64, copy=False)
    if pred.ndim != 3 or pred.shape[1] != pred.shape[2]:
        raise ValueError(f"pred: expected shape (B, V, V), got {pred.shape}")
    if edges.ndim != 2 or edges.shape[0] != 2:
        raise ValueError(f"edge_index: expected shape (2, E), got {edges.shape}")
    if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)) \
            or max_length < 0:
        raise ValueError(f"max_length={max_length!r}: expected a non-negative integer")
    counts = _counts(num_nodes, batch, edges)
    starts = np.concatenate(([0], np.cumsum(counts)))
    graphs, size = pred.shape[0], pred.shape[1]
    if counts.size != graphs or (counts.size and int(counts.max()) > size):
        raise ValueError(f"pred: shape {pred.shape} does not hold {counts.size} graphs of up to "
                         f"{int(counts.max()) if counts.size else 0} vertices")
    if edges.size and (edges.min() < 0 or edges.max() >= starts[-1]):
        raise ValueError(f"edge_index: a vertex outside the batch's {starts[-1]}")
    graph = np.searchsorted(starts, edges[0], side="right") - 1
    ids = np.full((graphs, size, size), -1, dtype=np.int64)
    u, v = edges[0] - starts[graph], edges[1] - starts[graph]
    column = np.arange(edges.shape[1], dtype=np.int64)
    ids[graph, u, v] = column
    if not directed:
        ids[graph, v, u] = column
    g, i, j = np.nonzero(pred >= 0)  # pairs with a path of at least one edge
    hops = np.zeros(g.size, dtype=np.int64)
    at = j.copy()
    while True:  # the path's length: steps back from j to i
        back = pred[g, i, at]
        live = back >= 0
        if not live.any():
            break
        hops += live
        at = np.where(live, back, at)
    paths = np.full(pred.shape + (max_length,), -1, dtype=np.int64)
    at, step = j.copy(), np.zeros(g.size, dtype=np.int64)
    for _ in range(int(hops.max()) if hops.size else 0):  # edges from the back: k = hops-1-step
        back = pred[g, i, at]
        k = hops - 1 - step
        keep = (back >= 0) & (k < max_length)
        paths[g[keep], i[keep], j[keep], k[keep]] = ids[g[keep], back[keep], at[keep]]
        live = back >= 0
        at, step = np.where(live, back, at), step + live
    return paths
