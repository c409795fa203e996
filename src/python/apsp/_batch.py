"""Many small graphs in one call (apsp_solver_solve_batch): floyd_warshall_batch, as graph
transformers (Graphormer's spatial encoding) solve every graph of a dataset, and edge_paths, the
edges of each pair's shortest path (Graphormer's edge encoding)."""

import sys

import numpy as np

from . import _convert, _core
from ._solve import _raise, default_solver

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


def _edges(source, target, weight, counts):
    """(source, target, weight, first) for solve_batch, first[g] graph g's first edge: edges
    grouped by graph (as PyG batches them: a graph's vertices, and so its edges' sources, all
    above the graph before's) are searched as they are. Edges that are not make the solve refuse
    a graph's edge; _grouped then sorts them."""
    starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    first = np.searchsorted(source, starts[:-1], side="left").astype(np.int64)
    return source, target, weight, np.append(first, source.size).astype(np.int64)


def _grouped(source, target, weight, first, counts):
    """_edges' arrays with the edges stably sorted by graph, or None when they already were."""
    starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    graph = np.searchsorted(starts, source, side="right") - 1
    if not graph.size or np.all(graph[1:] >= graph[:-1]):
        return None
    order = np.argsort(graph, kind="stable")
    weight = None if weight is None else weight[order]
    return _edges(source[order], target[order], weight, counts)


def _from_sparse(graphs):
    """A list of SciPy sparse matrices (or arrays) as one batch's edges, as SciPy reads each:
    every stored entry an edge, zeros included; NaN and infinite entries none."""
    mats = [g.tocsr() if g.format != "csr" else g for g in graphs]
    counts = np.array([m.shape[0] for m in mats], dtype=np.int64)
    for m in mats:
        if m.shape[0] != m.shape[1]:
            raise ValueError(f"graphs: a matrix of shape {m.shape} is not square")
    starts = np.concatenate(([0], np.cumsum(counts)))
    indptr = np.concatenate([m.indptr.astype(np.int64, copy=False) for m in mats])
    entries = np.diff(indptr)
    entries = np.delete(entries, np.cumsum(counts + 1)[:-1] - 1)  # graphs' seams
    nnz = np.array([m.indptr[-1] for m in mats], dtype=np.int64)
    source = np.repeat(np.arange(starts[-1], dtype=np.int64), entries)
    target = np.concatenate([m.indices[: m.indptr[-1]] for m in mats]).astype(np.int64)
    target += np.repeat(starts[:-1], nnz)
    weight = np.concatenate([m.data[: m.indptr[-1]] for m in mats]) if mats else np.empty(0)
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


def _solve_type(weight, counts, dtype, unweighted):
    """(the solve's type, the result's type): dtype when given; else SciPy's result type
    (float32 for float32 weights, float64 otherwise), solved in int32 (int64) where every
    weight is whole and every path within its rule, as the integers are exact and faster."""
    if dtype is not None:
        kind = np.dtype(dtype)
        if kind not in _TYPES:
            raise ValueError(f"dtype={dtype}: expected int32, int64, float32 or float64")
        return kind, kind
    single = weight is not None and weight.dtype == np.float32
    result = np.dtype(np.float32 if single else np.float64)
    if unweighted or weight is None or weight.size == 0:
        return np.dtype(np.int32), result
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

    graphs: a list of square dense arrays (0, NaN and inf: no edge) or of SciPy sparse matrices
    (every stored entry an edge); or, instead, a graph-learning batch: edge_index (2 x E
    integers, vertices numbered over the whole batch), edge_weight (E weights, or None: 1) and
    either num_nodes (the vertices of each graph) or batch (PyG's vector: vertex -> graph,
    graphs contiguous). Arrays may be NumPy arrays or host tensors with __dlpack__ (PyTorch,
    CuPy host arrays), taken without a copy. directed=False: edges go both ways;
    unweighted=True: every edge weighs 1.

    Returns (dist, sizes), with return_predecessors (dist, pred, sizes): dist of shape (B, Vmax,
    Vmax), graph g in dist[g, :sizes[g], :sizes[g]] and the rest of its block unreachable; with
    packed=True a list of B arrays, graph g's (sizes[g], sizes[g]) each, views of one buffer.
    dist's type is SciPy's (float64, float32 for float32 weights; inf: no path) unless dtype
    says (np.int32, np.int64: apsp.INF32 / apsp.INF64 for no path). pred: int32, SciPy's
    predecessors (-9999: none), graph-local vertex numbers. max_distance=m clips as Graphormer
    does: every distance above m, and every unreachable pair, becomes m (Graphormer's 510 with
    max_distance=510). like=t returns dist and pred as t's array type (torch.Tensor: through
    torch.from_dlpack); out= a writable array of dist's shape and type to fill (padded only).
    solver: an apsp.Solver (its backend and threads), None: the default one.
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
        sparse = bool(graphs) and all(hasattr(g, "tocsr") for g in graphs)
        counts, source, target, weight = (_from_sparse if sparse else _from_dense)(graphs)
    else:
        raise ValueError("floyd_warshall_batch: give graphs, or edge_index with its sizes")
    if unweighted:
        weight = None
    if packed and out is not None:
        raise ValueError("out= fills a padded result; packed=True returns views of its own")
    kernel, result = _solve_type(weight, counts, dtype, unweighted)
    if weight is not None:
        if weight.dtype.kind == "f" and not np.all(np.isfinite(weight)):
            raise ValueError("edge_weight: every weight must be a finite number")
        if kernel.kind == "i" and weight.dtype.kind == "f" and np.any(np.mod(weight, 1) != 0):
            raise ValueError(f"dtype={kernel}: the weights must be whole numbers")
        weight = np.ascontiguousarray(weight, dtype=kernel)
    pitch = 0 if packed else int(counts.max()) if counts.size else 0
    shape = int(counts @ counts) if packed else counts.size * pitch * pitch
    cells = np.empty(shape, dtype=kernel)
    pred = np.empty(shape, dtype=np.int32) if return_predecessors else None
    edges = _edges(np.ascontiguousarray(source), np.ascontiguousarray(target), weight, counts)
    solve = solver._open().solve_batch
    try:
        solver.last_report = solve(cells, counts, pitch, pred, *edges, not directed)
    except _core.Error as error:
        regrouped = error.args[1] == _core.USAGE and _grouped(*edges, counts)
        if not regrouped:
            _raise(error)
        try:  # edges that were not in graph order, sorted
            solver.last_report = solve(cells, counts, pitch, pred, *regrouped, not directed)
        except _core.Error as again:
            _raise(again)
    dist = _finish(cells, kernel, result, max_distance)
    return _shaped(dist, pred, counts, pitch, packed, like, out)


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


def _shaped(dist, pred, counts, pitch, packed, like, out):
    if packed:
        ends = np.cumsum(counts * counts)
        split = lambda a: [a[e - n * n: e].reshape(n, n) for n, e in zip(counts, ends)]
        dists = [_as_like(d, like) for d in split(dist)]
        preds = None if pred is None else [_as_like(p, like) for p in split(pred)]
        return (dists, counts) if pred is None else (dists, preds, counts)
    dist = dist.reshape(counts.size, pitch, pitch)
    if out is not None:
        target = np.asarray(out)
        if target.shape != dist.shape or target.dtype != dist.dtype:
            raise ValueError(f"out: expected {dist.dtype} of shape {dist.shape}")
        target[...] = dist
        dist = out
    else:
        dist = _as_like(dist, like)
    if pred is None:
        return dist, counts
    return dist, _as_like(pred.reshape(dist.shape), like), counts


def edge_paths(pred, edge_index, max_length, *, num_nodes=None, batch=None, directed=True):
    """The edges of each pair's shortest path, from its source, as Graphormer's edge encoding
    takes them: an int64 array of pred's shape + (max_length,), entry [g, i, j, k] the column of
    edge_index holding the k-th edge of the path i -> j of graph g (k < max_length), -1 past the
    path's end, for i = j and for unreachable pairs. pred: floyd_warshall_batch's padded
    predecessors; edge_index, num_nodes, batch: as given to it. directed=False: an edge serves
    both ways (its one column for either). Repeated edges: one of them."""
    pred = _array(pred)
    edges = _array(edge_index).astype(np.int64, copy=False)
    counts = _counts(num_nodes, batch, edges)
    starts = np.concatenate(([0], np.cumsum(counts)))
    graphs, size = pred.shape[0], pred.shape[1]
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
