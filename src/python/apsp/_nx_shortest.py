"""NetworkX's shortest-path family on apsp (apsp.nx's backend functions): each one the library's
Dijkstra ("D"), Bellman-Ford ("BF") or Johnson ("J") from the sources it needs, with NetworkX's
arguments, results and exceptions. What apsp does not compute as NetworkX does (negative weights
for the Dijkstra family, mixed int and float weights, int sums past 2^53) raises
NotImplementedError, on which NetworkX runs its own function where its fallback is on."""

from ._nx_search import (
    ApspGraph,
    NegativeCycleError,
    Unsupported,
    lengths,
    order,
    paths,
    rows_in_chunks,
    search_from_set,
    tied_predecessors,
    values,
    with_numbers,
)

SHORTEST_PATH_FUNCTIONS = (
    "dijkstra_path",
    "dijkstra_path_length",
    "single_source_dijkstra_path",
    "single_source_dijkstra_path_length",
    "single_source_dijkstra",
    "multi_source_dijkstra_path",
    "multi_source_dijkstra_path_length",
    "multi_source_dijkstra",
    "dijkstra_predecessor_and_distance",
    "all_pairs_dijkstra",
    "all_pairs_dijkstra_path_length",
    "all_pairs_dijkstra_path",
    "bidirectional_dijkstra",
    "bellman_ford_predecessor_and_distance",
    "bellman_ford_path",
    "bellman_ford_path_length",
    "single_source_bellman_ford_path",
    "single_source_bellman_ford_path_length",
    "single_source_bellman_ford",
    "all_pairs_bellman_ford_path_length",
    "all_pairs_bellman_ford_path",
    "negative_edge_cycle",
    "johnson",
    "has_path",
    "shortest_path",
    "shortest_path_length",
    "average_shortest_path_length",
    "single_source_shortest_path_length",
    "single_target_shortest_path_length",
    "all_pairs_shortest_path_length",
)


def _nx():
    import networkx

    return networkx


def _graph(G):
    return G if isinstance(G, ApspGraph) else ApspGraph(G)


class _Single:
    """One search's answer: the Edges, the sources' numbers, a distance row, reached, preds."""

    def __init__(self, edges, sources, dist, reached, pred):
        self.edges, self.sources = edges, sources
        self.dist, self.reached, self.pred = dist, reached, pred

    def lengths(self, cutoff=None):
        return lengths(self.edges, self.dist, self.reached, self.sources, cutoff)

    def paths(self, cutoff=None):
        return paths(self.edges, self.pred, order(self.dist, self.reached, self.sources, cutoff))

    def to(self, node, no_path):
        """(distance, path) to node; no_path() raised where it is not reached."""
        i = self.edges.index.get(node)
        if i is None or not self.reached[i]:
            raise no_path()
        length = values(self.edges, self.dist, [i], self.sources)[0]  # (not every node's)
        return length, paths(self.edges, self.pred, [i])[node]


def _dijkstra_edges(G, weight, reverse=False):
    """The edges for a Dijkstra search; weight None (every edge 1) is a breadth-first one."""
    edges = _graph(G).apsp_edges(weight)
    if edges.negative:
        raise Unsupported("apsp's Dijkstra takes no negative weight (NetworkX's own then runs)")
    return edges.reversed() if reverse else edges


def _bellman_ford_edges(G, weight, reverse=False):
    edges = _graph(G).apsp_edges(weight)
    if edges.negative_loop:
        raise _nx().NetworkXUnbounded("Negative cycle detected.")
    return edges.reversed() if reverse else edges


def _solve(edges, sources, method, predecessors=True):
    numbers = [edges.index[s] for s in sources]
    try:
        dist, reached, pred = search_from_set(edges, numbers, method, predecessors)
    except NegativeCycleError:
        raise _nx().NetworkXUnbounded("Negative cycle detected.") from None
    return _Single(edges, numbers, dist, reached, pred)


def _check_sources(G, sources):
    if not sources:
        raise ValueError("sources must not be empty")
    for s in sources:
        if s not in G:
            raise _nx().NodeNotFound(f"Node {s} not found in graph")


def _multi_source(G, sources, target=None, cutoff=None, weight="weight", reverse=False):
    _check_sources(G, sources)
    if target in sources:
        return 0, [target]
    run = _solve(_dijkstra_edges(G, weight, reverse), list(sources), "D")
    if target is None:
        return run.lengths(cutoff), run.paths(cutoff)
    within = run.lengths(cutoff)
    if target not in within:
        raise _nx().NetworkXNoPath(f"No path to {target}.")
    return within[target], run.to(target, None)[1]


def _single_source_bellman_ford(G, source, target=None, weight="weight", reverse=False):
    if source == target:
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} is not found in the graph")
        return 0, [source]
    if source not in G:
        raise _nx().NodeNotFound(f"Node {source} is not found in the graph")
    run = _solve(_bellman_ford_edges(G, weight, reverse), [source], "BF")
    if target is None:
        return run.lengths(), run.paths()
    return run.to(target, lambda: _nx().NetworkXNoPath(
        f"Node {target} not reachable from {source}"))


def _bfs(G, source, cutoff, reverse=False, what="Source"):
    if source not in G:
        raise _nx().NodeNotFound(f"{what} {source} is not in G")
    run = _solve(_dijkstra_edges(G, None, reverse), [source], "D", predecessors=False)
    return run.lengths(cutoff)


def _all_rows(edges, method, predecessors=False):
    """(source number, _Single) for every vertex in node order, solved in chunks."""
    for s, dist, reached, pred in rows_in_chunks(edges, method, predecessors):
        yield s, _Single(edges, [s], dist, reached, pred)


class ShortestPaths:
    """NetworkX's shortest-path functions, as apsp.nx.BackendInterface's static methods."""

    # --- Dijkstra ---------------------------------------------------------------------------

    @staticmethod
    def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
        return _multi_source(G, sources, target, cutoff, weight)

    @staticmethod
    def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
        return _multi_source(G, sources, None, cutoff, weight)[1]

    @staticmethod
    def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
        _check_sources(G, sources)
        run = _solve(_dijkstra_edges(G, weight), list(sources), "D", predecessors=False)
        return run.lengths(cutoff)

    @staticmethod
    def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
        return _multi_source(G, {source}, target, cutoff, weight)

    @staticmethod
    def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
        return _multi_source(G, {source}, None, cutoff, weight)[1]

    @staticmethod
    def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
        return ShortestPaths.multi_source_dijkstra_path_length(G, {source}, cutoff, weight)

    @staticmethod
    def dijkstra_path(G, source, target, weight="weight"):
        return _multi_source(G, {source}, target, None, weight)[1]

    @staticmethod
    def dijkstra_path_length(G, source, target, weight="weight"):
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} not found in graph")
        if source == target:
            return 0
        run = _solve(_dijkstra_edges(G, weight), [source], "D", predecessors=False)
        found = run.lengths()
        if target not in found:
            raise _nx().NetworkXNoPath(f"Node {target} not reachable from {source}")
        return found[target]

    @staticmethod
    def dijkstra_predecessor_and_distance(G, source, cutoff=None, weight="weight"):
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} is not found in the graph")
        run = _solve(_dijkstra_edges(G, weight), [source], "D", predecessors=False)
        numbers = order(run.dist, run.reached, run.sources, cutoff)
        pred = tied_predecessors(run.edges, run.dist, run.reached, numbers, run.sources)
        return pred, run.lengths(cutoff)

    @staticmethod
    def bidirectional_dijkstra(G, source, target, weight="weight"):
        if source not in G:
            raise _nx().NodeNotFound(f"Source {source} is not in G")
        if target not in G:
            raise _nx().NodeNotFound(f"Target {target} is not in G")
        if source == target:
            return 0, [source]
        run = _solve(_dijkstra_edges(G, weight), [source], "D")
        return run.to(target, lambda: _nx().NetworkXNoPath(
            f"No path between {source} and {target}."))

    @staticmethod
    def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
        edges = with_numbers(_dijkstra_edges(G, weight))
        return ((edges.nodes[s], (run.lengths(cutoff), run.paths(cutoff)))
                for s, run in _all_rows(edges, "D", predecessors=True))

    @staticmethod
    def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
        edges = with_numbers(_dijkstra_edges(G, weight))
        return ((edges.nodes[s], run.lengths(cutoff)) for s, run in _all_rows(edges, "D"))

    @staticmethod
    def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
        edges = _dijkstra_edges(G, weight)
        return ((edges.nodes[s], run.paths(cutoff))
                for s, run in _all_rows(edges, "D", predecessors=True))

    # --- Bellman-Ford -----------------------------------------------------------------------

    @staticmethod
    def single_source_bellman_ford(G, source, target=None, weight="weight"):
        return _single_source_bellman_ford(G, source, target, weight)

    @staticmethod
    def single_source_bellman_ford_path(G, source, weight="weight"):
        return _single_source_bellman_ford(G, source, None, weight)[1]

    @staticmethod
    def single_source_bellman_ford_path_length(G, source, weight="weight"):
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} is not found in the graph")
        return _solve(_bellman_ford_edges(G, weight), [source], "BF", False).lengths()

    @staticmethod
    def bellman_ford_path(G, source, target, weight="weight"):
        return _single_source_bellman_ford(G, source, target, weight)[1]

    @staticmethod
    def bellman_ford_path_length(G, source, target, weight="weight"):
        if source == target:
            if source not in G:
                raise _nx().NodeNotFound(f"Node {source} not found in graph")
            return 0
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} is not found in the graph")
        found = _solve(_bellman_ford_edges(G, weight), [source], "BF", False).lengths()
        if target not in found:
            raise _nx().NetworkXNoPath(f"node {target} not reachable from {source}")
        return found[target]

    @staticmethod
    def bellman_ford_predecessor_and_distance(G, source, target=None, weight="weight",
                                              heuristic=False):
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} is not found in the graph")
        run = _solve(_bellman_ford_edges(G, weight), [source], "BF", predecessors=False)
        numbers = order(run.dist, run.reached, run.sources, None)
        pred = tied_predecessors(run.edges, run.dist, run.reached, numbers, run.sources)
        return pred, run.lengths()

    @staticmethod
    def all_pairs_bellman_ford_path_length(G, weight="weight"):
        with_numbers(_graph(G).apsp_edges(weight))
        return ((u, ShortestPaths.single_source_bellman_ford_path_length(G, u, weight))
                for u in list(_graph(G).graph))

    @staticmethod
    def all_pairs_bellman_ford_path(G, weight="weight"):
        _graph(G).apsp_edges(weight)
        return ((u, ShortestPaths.single_source_bellman_ford_path(G, u, weight))
                for u in list(_graph(G).graph))

    @staticmethod
    def negative_edge_cycle(G, weight="weight", heuristic=True):
        graph = _graph(G)
        if graph.graph.size() == 0:
            return False
        edges = graph.apsp_edges(weight)
        if edges.negative_loop:
            return True
        try:
            search_from_set(edges, list(range(len(edges.nodes))) + [0], "BF")
        except NegativeCycleError:
            return True
        return False

    @staticmethod
    def johnson(G, weight="weight"):
        edges = _graph(G).apsp_edges(weight)
        if edges.negative_loop:
            raise _nx().NetworkXUnbounded("Negative cycle detected.")
        result = {}
        try:
            for s, dist, reached, pred in rows_in_chunks(edges, "J", predecessors=True):
                result[edges.nodes[s]] = _Single(edges, [s], dist, reached, pred).paths()
        except NegativeCycleError:
            raise _nx().NetworkXUnbounded("Negative cycle detected.") from None
        return result

    # --- unweighted and generic -------------------------------------------------------------

    @staticmethod
    def single_source_shortest_path_length(G, source, cutoff=None):
        return _bfs(G, source, cutoff)

    @staticmethod
    def single_target_shortest_path_length(G, target, cutoff=None):
        directed = _graph(G).graph.is_directed()
        return _bfs(G, target, cutoff, reverse=directed, what="Target")

    @staticmethod
    def all_pairs_shortest_path_length(G, cutoff=None):
        edges = _graph(G).apsp_edges(None)
        return ((edges.nodes[s], run.lengths(cutoff)) for s, run in _all_rows(edges, "D"))

    @staticmethod
    def has_path(G, source, target):
        graph = _graph(G).graph
        if source not in graph or target not in graph:
            raise _nx().NodeNotFound(f"Either source {source} or target {target} is not in G")
        return target in _bfs(G, source, None)

    @staticmethod
    def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
        return _generic(G, source, target, weight, method, lengths_only=False)

    @staticmethod
    def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
        return _generic(G, source, target, weight, method, lengths_only=True)

    @staticmethod
    def average_shortest_path_length(G, weight=None, method=None):
        return _average(G, weight, method)


def _unweighted_path(G, source, target):
    graph = _graph(G).graph
    if source not in graph or target not in graph:
        raise _nx().NodeNotFound(f"Either source {source} or target {target} is not in G")
    run = _solve(_graph(G).apsp_edges(None), [source], "D")
    return run.to(target, lambda: _nx().NetworkXNoPath(
        f"No path between {source} and {target}."))


def _generic_one_source(G, source, weight, method, lengths_only, reverse, to_source=False):
    """shortest_path(_length) from source to every node; to_source: the paths to source (on
    the reversed edges where reverse, a directed graph's)."""
    if method == "bellman-ford":
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} is not found in the graph")
        run = _solve(_bellman_ford_edges(G, weight, reverse), [source], "BF")
    else:
        _check_sources(G, [source])
        run = _solve(_dijkstra_edges(G, weight, reverse), [source], "D")
    if lengths_only:
        return run.lengths()
    found = run.paths()
    return {t: p[::-1] for t, p in found.items()} if to_source else found


def _generic(G, source, target, weight, method, lengths_only):
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if weight is None:
        method = "dijkstra"  # NetworkX's breadth-first search: every edge 1
    graph = _graph(G).graph
    if source is None and target is None:
        return _all_pairs(G, weight, method, lengths_only)
    if source is None:
        return _generic_one_source(G, target, weight, method, lengths_only,
                                   reverse=graph.is_directed(), to_source=True)
    if target is None:
        return _generic_one_source(G, source, weight, method, lengths_only, reverse=False)
    if weight is None:
        length, path = _unweighted_path(G, source, target)
    elif method == "dijkstra":
        if lengths_only:
            return ShortestPaths.dijkstra_path_length(G, source, target, weight)
        length, path = ShortestPaths.bidirectional_dijkstra(G, source, target, weight)
    else:
        if lengths_only:
            return ShortestPaths.bellman_ford_path_length(G, source, target, weight)
        length, path = _single_source_bellman_ford(G, source, target, weight)
    return len(path) - 1 if lengths_only else path


def _all_pairs(G, weight, method, lengths_only):
    if weight is None:
        return (ShortestPaths.all_pairs_shortest_path_length(G) if lengths_only
                else ((u, _generic_one_source(G, u, None, "dijkstra", False, False))
                      for u in list(_graph(G).graph)))
    if method == "dijkstra":
        return (ShortestPaths.all_pairs_dijkstra_path_length(G, weight=weight) if lengths_only
                else ShortestPaths.all_pairs_dijkstra_path(G, weight=weight))
    return (ShortestPaths.all_pairs_bellman_ford_path_length(G, weight) if lengths_only
            else ShortestPaths.all_pairs_bellman_ford_path(G, weight))


def _average(G, weight, method):
    single = ("unweighted", "dijkstra", "bellman-ford")
    if method is None:
        method = "unweighted" if weight is None else "dijkstra"
    if method not in single + ("floyd-warshall", "floyd-warshall-numpy"):
        raise ValueError(f"method not supported: {method}")
    graph = _graph(G).graph
    n = len(graph)
    if n == 0:
        raise _nx().NetworkXPointlessConcept(
            "the null graph has no paths, thus there is no average shortest path length")
    if n == 1:
        return 0
    nx = _nx()
    if graph.is_directed() and not nx.is_strongly_connected(graph):
        raise nx.NetworkXError("Graph is not strongly connected.")
    if not graph.is_directed() and not nx.is_connected(graph):
        raise nx.NetworkXError("Graph is not connected.")
    if method == "unweighted":
        weight = None
    edges = _dijkstra_edges(G, weight) if method == "dijkstra" else _graph(G).apsp_edges(weight)
    if edges.negative_loop:
        raise nx.NetworkXUnbounded("Negative cycle detected.")
    total = 0
    try:
        for _, dist, _, _ in rows_in_chunks(edges, "J" if edges.negative else "D"):
            total += int(dist.sum()) if dist.dtype.kind == "i" else float(dist.sum())
    except NegativeCycleError:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from None
    if not edges.integral and method in single:
        total = float(total)
    return total / (n * (n - 1))


__all__ = ["SHORTEST_PATH_FUNCTIONS", "ShortestPaths"]
