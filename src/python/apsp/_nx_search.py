"""The NetworkX backend's searches (apsp.nx): a NetworkX graph's edges as the library's sources
solve takes them, and the rows of distances and predecessors from chosen sources, turned into
NetworkX's dicts (node labels, Python ints for int weights, floats for float ones)."""

import copy

import numpy as np

from . import _sources
from ._solve import NegativeCycleError, _core, _raise

# Sources solved at once by the all-pairs generators: S x V rows held at a time, not V x V.
ROWS_AT_ONCE = 256


class Unsupported(NotImplementedError):
    """What apsp does not compute as NetworkX does: NetworkX's backend protocol then runs
    NetworkX's own function (its fallback)."""


class Edges:
    """A graph's edges as the sources solve takes them: vertices numbered in the graph's node
    order, both ways for an undirected graph, a multigraph's parallel edges all kept (a search
    takes the least), self-loops left out (a non-negative one is on no shortest path)."""

    def __init__(self, nodes, index, row, col, data, integral, negative_loop):
        self.nodes, self.index = nodes, index
        self.row, self.col = row, col
        self.integral = integral  # every weight a Python int: NetworkX's sums are ints
        self.negative_loop = negative_loop
        self.weights, self.dtype = _sources._weights(data, len(nodes) + 1)
        self.negative = bool(data.size) and bool(data.min() < 0)
        if integral and self.dtype == _sources.DTYPES["float64"]:
            raise Unsupported("apsp: integer weights whose sums pass 2^53: NetworkX's exact "
                              "Python ints are left to NetworkX")

    def reversed(self):
        """The same graph with every edge turned round (NetworkX's G.reverse())."""
        r = copy.copy(self)
        r.row, r.col = self.col, self.row
        return r


class ApspGraph:
    """A NetworkX graph handed to apsp: the graph itself, and its edges converted for each
    weight attribute the first time a function asks (NetworkX keeps this object in the graph's
    backend cache, which a change of the graph through its methods empties)."""

    __networkx_backend__ = "apsp"

    def __init__(self, graph):
        self.graph = graph
        self._edges = {}

    def __contains__(self, node):
        return node in self.graph

    def __len__(self):
        return len(self.graph)

    def __iter__(self):
        return iter(self.graph)

    def apsp_edges(self, weight):
        """The graph's Edges for the weight attribute (a name, or None: every edge 1)."""
        if weight not in self._edges:
            self._edges[weight] = edges_of(self.graph, weight)
        return self._edges[weight]

    def is_directed(self):
        return self.graph.is_directed()

    def is_multigraph(self):
        return self.graph.is_multigraph()


def _adjacency_lists(G, weight, index):
    """(rows, cols, weights) of every (u, v) of G's adjacency, an undirected edge both ways
    (a self-loop once): the weight 1 where the edge lacks it, and every edge's 1 where weight
    is None (NetworkX's _weight_function reads data.get(None, 1)). G._adj, as NetworkX's own
    searches read it: G.edges() counts the edges first, a second pass."""
    rows, cols, ws = [], [], []
    multigraph = G.is_multigraph()
    for u, neighbours in G._adj.items():
        i = index[u]
        for v, data in neighbours.items():
            for d in data.values() if multigraph else (data,):
                rows.append(i)
                cols.append(index[v])
                ws.append(1 if weight is None else d.get(weight, 1))
    return rows, cols, ws


def edges_of(G, weight):
    """G's Edges for the weight attribute `weight` (a name or None). The types of the weights
    off the self-loops decide NetworkX's sums: all int, all float, or mixed. (One pass of
    Python per edge (G._adj), NumPy for the rest: the conversion is most of a first call.)"""
    nodes = list(G)
    index = {u: i for i, u in enumerate(nodes)}
    rows, cols, ws = _adjacency_lists(G, weight, index)
    types = set(map(type, ws))
    if not types <= {int, bool, float}:
        raise Unsupported("apsp: an edge weight that is neither int nor float")
    row = np.array(rows, dtype=np.int32)
    col = np.array(cols, dtype=np.int32)
    try:
        data = np.array(ws, dtype=np.float64 if float in types else np.int64).reshape(-1)
    except OverflowError:
        raise Unsupported("apsp: an integer weight past int64: NetworkX's exact Python ints "
                          "are left to NetworkX") from None
    loops = row == col
    floats = np.fromiter(map(float.__instancecheck__, ws), dtype=bool, count=len(ws)) \
        if len(types) > 1 and float in types else np.full(len(ws), float in types)
    negative_loop = bool(np.any(data[loops] < 0))
    keep = ~loops
    row, col, data, floats = row[keep], col[keep], data[keep], floats[keep]
    integral = not floats.any()
    if integral and data.dtype.kind == "f":
        data = data.astype(np.int64)  # (float weights on self-loops only)
    edges = Edges(nodes, index, row, col, data, integral, negative_loop)
    edges.mixed = bool(floats.any() and not floats.all())
    return edges


def search(edges, sources, method, predecessors=False):
    """(distances S x V, reached S x V bool, predecessors S x V int32 or None) from the vertex
    numbers `sources` by the library's method "D", "J" or "BF". A negative cycle raises
    NegativeCycleError."""
    ind = np.asarray(sources, dtype=np.int32)
    try:
        out, pred = _sources.search_rows(edges.row, edges.col, edges.weights, len(edges.nodes),
                                         ind, method, edges.dtype, predecessors)
    except _core.Error as error:
        _raise(error)
    reached = ~_sources.unreached(out, edges.dtype)
    return out, reached, pred


def search_from_set(edges, sources, method, predecessors=False):
    """One row: the least distance from any of the vertex numbers `sources`, by a search from
    a vertex added for it with a 0 edge to each source (its predecessor entries read -1)."""
    if len(sources) == 1:
        d, r, p = search(edges, sources, method, predecessors)
        return d[0], r[0], None if p is None else p[0]
    n = len(edges.nodes)
    joined = copy.copy(edges)
    joined.nodes = edges.nodes + [None]
    src = np.asarray(sources, dtype=np.int32)
    joined.row = np.concatenate([edges.row, np.full(len(src), n, dtype=np.int32)])
    joined.col = np.concatenate([edges.col, src])
    joined.weights = np.concatenate([edges.weights, np.zeros(len(src), edges.weights.dtype)])
    d, r, p = search(joined, [n], method, predecessors)
    if p is not None:
        p = p[0, :n].copy()
        p[p == n] = -1
    return d[0, :n], r[0, :n], p


def order(dist, reached, sources, cutoff):
    """The vertex numbers reached within cutoff: the sources first, in their order, then the
    others by distance (NetworkX's Dijkstra settles them in that order; among equal distances
    apsp keeps the node order)."""
    keep = reached.copy()
    if cutoff is not None:
        keep &= dist <= cutoff
    keep[sources] = False
    rest = np.flatnonzero(keep)
    rest = rest[np.argsort(dist[rest], kind="stable")]
    return list(sources) + rest.tolist()


def with_numbers(edges):
    """The edges, where NetworkX's numbers can be given (not int and float weights mixed). The
    all-pairs generators check it before they start: NetworkX's fallback catches the call, not
    the iteration."""
    if edges.mixed:
        raise Unsupported("apsp: int and float weights mixed (NetworkX's sums are of both "
                          "types)")
    return edges


def values(edges, dist, numbers, sources):
    """NetworkX's numbers of the distances to `numbers`: ints for int weights; floats for float
    weights, but the sources' 0 (NetworkX starts every search at the int 0)."""
    with_numbers(edges)
    got = dist[numbers].tolist()  # (Python ints of an integer array)
    if edges.integral:
        return got if dist.dtype.kind == "i" else [int(v) for v in got]
    first = set(sources)
    return [0 if i in first else float(v) for i, v in zip(numbers, got)]


def lengths(edges, dist, reached, sources, cutoff=None):
    """{node: distance} as NetworkX's single_source_dijkstra_path_length gives it."""
    numbers = order(dist, reached, sources, cutoff)
    nodes = edges.nodes
    return dict(zip((nodes[i] for i in numbers), values(edges, dist, numbers, sources)))


def paths(edges, pred, numbers):
    """{node: [source, ..., node]} along the predecessors (-1 or -9999 at a source)."""
    nodes = edges.nodes
    built = {}
    for i in numbers:
        chain = []
        j = i
        while j not in built and pred[j] >= 0:
            chain.append(j)
            j = int(pred[j])
        path = list(built[j]) if j in built else [nodes[j]]
        if j not in built:
            built[j] = path[:]
        for k in reversed(chain):
            path.append(nodes[k])
            built[k] = path[:]
    return {nodes[i]: built[i] for i in numbers}


def tied_predecessors(edges, dist, reached, numbers, sources):
    """{node: [every predecessor on a shortest path]} as NetworkX's
    dijkstra_predecessor_and_distance gives it: [] at a source, the predecessors in the order
    their distances settle."""
    within = np.zeros(len(dist), dtype=bool)
    within[numbers] = True
    row, col = edges.row, edges.col
    w = edges.weights.astype(dist.dtype)
    tight = within[row] & within[col] & (dist[row] + w == dist[col])
    tight &= ~np.isin(col, sources)
    r, c = row[tight], col[tight]
    ranks = np.empty(len(dist), dtype=np.int64)
    ranks[numbers] = np.arange(len(numbers))
    pick = np.lexsort((ranks[r], c))
    nodes = edges.nodes
    result = {nodes[i]: [] for i in numbers}
    last = None
    for pair in zip(r[pick].tolist(), c[pick].tolist()):
        if pair != last:  # (a multigraph's parallel edges: one predecessor)
            result[nodes[pair[1]]].append(nodes[pair[0]])
        last = pair
    return result


def rows_in_chunks(edges, method, predecessors=False):
    """(source number, distances, reached, predecessors) for every vertex in node order, solved
    ROWS_AT_ONCE sources at a time."""
    n = len(edges.nodes)
    for first in range(0, n, ROWS_AT_ONCE):
        block = list(range(first, min(n, first + ROWS_AT_ONCE)))
        d, r, p = search(edges, block, method, predecessors)
        for k, s in enumerate(block):
            yield s, d[k], r[k], None if p is None else p[k]


__all__ = ["ApspGraph", "Edges", "NegativeCycleError", "Unsupported", "edges_of", "search",
           "search_from_set", "lengths", "paths", "tied_predecessors", "rows_in_chunks",
           "order", "values", "with_numbers"]
