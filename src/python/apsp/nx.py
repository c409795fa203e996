"""A NetworkX backend (NetworkX >= 3.2: entry points ``networkx.backends`` and
``networkx.backend_info``, registered in pyproject.toml)::

    networkx.all_pairs_dijkstra_path_length(G, backend="apsp")
    networkx.floyd_warshall(G, backend="apsp")

Covered: NetworkX's shortest-path family (FUNCTIONS; docs/python.md has the table of what runs
for each). The Floyd-Warshall three are here; the searches from sources are _nx_shortest.py's.
floyd_warshall_numpy and floyd_warshall give floyd_warshall_numpy's float64 numbers:
whole-number weights are solved exactly in integers while float64 sums are exact too, larger
ones (1e19, 2**70) and fractions in float64 (NetworkX's own floyd_warshall adds Python ints
exactly: past 2^53 its integers may differ from these in the last digits). Edge weights are the
`weight` attribute (1 where an edge lacks it); a multigraph's parallel edges keep the least. A
graph with a negative cycle raises networkx.NetworkXUnbounded where NetworkX's own
floyd_warshall_numpy returns meaningless numbers.
"""

from collections import defaultdict

import numpy as np

from . import _convert, _nx_search
from ._nx_search import ApspGraph
from ._nx_shortest import SHORTEST_PATH_FUNCTIONS, ShortestPaths
from ._solve import NegativeCycleError, default_solver, predecessor_request


def _callable_weight(name, args, kwargs):
    """Whether the call passes a function as `weight` (apsp reads an attribute's name only)."""
    import inspect

    import networkx as nx

    try:
        bound = inspect.signature(getattr(nx, name)).bind(*args, **kwargs)
    except (AttributeError, TypeError):
        return False
    return callable(bound.arguments.get("weight"))


def _distances(G, nodelist, weight, predecessors=False):
    """(nodes, float64 distances, int32 predecessors or None) by the blocked Floyd-Warshall."""
    import networkx as nx

    nodes = list(G) if nodelist is None else list(nodelist)
    a = nx.to_numpy_array(G, nodes, multigraph_weight=min, weight=weight, nonedge=np.inf)
    # inf is the only non-edge here: a weight-0 edge stays an edge. Whole-number weights are
    # solved exactly in integers while that gives NetworkX's float64 sums, others (1e19 too) in
    # float64: never a cast that wraps.
    edges = np.isfinite(a)
    kernel = _convert.whole_number_type(a[edges], len(nodes))
    w = np.full(a.shape, _convert.unreachable(kernel), dtype=kernel)
    w[edges] = a[edges]
    np.fill_diagonal(w, 0)
    pred, extra = predecessor_request(w, kernel) if predecessors else (None, {})
    try:
        d = _convert.output(default_solver().solve_matrix(w, **extra), np.dtype(np.float64))
    except NegativeCycleError as error:
        raise nx.NetworkXUnbounded(f"Negative cycle detected: {error}") from None
    return nodes, d, pred


def _floyd_warshall_types(G, weight):
    """True where NetworkX's floyd_warshall_predecessor_and_distance sums ints (every edge's
    weight an int), False where floats (an edge without the attribute counts 1.0 there).
    A self-loop's weight is in no sum: a negative one is a negative cycle."""
    kinds = {type(d.get(weight, 1.0)) is float for u, v, d in G.edges(data=True) if u != v}
    if kinds == {True, False}:
        raise _nx_search.Unsupported("apsp: int and float weights mixed (NetworkX's sums are "
                                     "of both types)")
    return kinds != {True}


def _predecessor_and_distance(nodes, d, pred, integral, loops):
    """NetworkX's (pred, dist) dicts of the Floyd-Warshall rows: ints for int weights, the
    diagonal's int 0, inf for what is not reached (dist's defaultdicts); a node with a
    self-loop is its own predecessor, as NetworkX's edge loop records it."""
    if integral and np.any(np.abs(d[np.isfinite(d)]) >= 2**53):
        raise _nx_search.Unsupported("apsp: integer sums past 2^53: NetworkX's exact Python "
                                     "ints are left to NetworkX")
    preds, dist = {}, {}
    for i, u in enumerate(nodes):
        # Every pair, as NetworkX's triple loop leaves its defaultdicts: u first, then the rest.
        numbers = [i] + [j for j in range(len(nodes)) if j != i]
        values = [int(x) if integral and x != np.inf else x for x in d[i, numbers].tolist()]
        values[0] = 0
        dist[u] = defaultdict(lambda: float("inf"), zip((nodes[j] for j in numbers), values))
        before = {nodes[j]: nodes[pred[i, j]] for j in numbers[1:] if pred[i, j] >= 0}
        if u in loops:
            before[u] = u
        if before:
            preds[u] = before
    return preds, dist


FUNCTIONS = (
    "floyd_warshall_numpy",
    "floyd_warshall",
    "floyd_warshall_predecessor_and_distance",
) + SHORTEST_PATH_FUNCTIONS


class BackendInterface(ShortestPaths):
    """The object NetworkX loads from the ``networkx.backends`` entry point."""

    @staticmethod
    def convert_from_nx(G, *args, **kwargs):
        return ApspGraph(G)

    @staticmethod
    def convert_to_nx(result, *, name=None):
        return result.graph if isinstance(result, ApspGraph) else result

    @staticmethod
    def can_run(name, args, kwargs):
        return name in FUNCTIONS and not _callable_weight(name, args, kwargs)

    @staticmethod
    def should_run(name, args, kwargs):
        return name in FUNCTIONS

    @staticmethod
    def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
        import networkx as nx

        G = G.graph if isinstance(G, ApspGraph) else G
        if nodelist is not None and not (len(nodelist) == len(G) == len(set(nodelist))):
            raise nx.NetworkXError(
                "nodelist must contain every node in G with no repeats."
                "If you wanted a subgraph of G use G.subgraph(nodelist)"
            )
        return _distances(G, nodelist, weight)[1]

    @staticmethod
    def floyd_warshall_predecessor_and_distance(G, weight="weight"):
        G = G.graph if isinstance(G, ApspGraph) else G
        integral = _floyd_warshall_types(G, weight)
        nodes, d, pred = _distances(G, None, weight, predecessors=True)
        loops = {u for u, v in G.edges() if u == v}
        return _predecessor_and_distance(nodes, d, pred, integral, loops)

    @staticmethod
    def floyd_warshall(G, weight="weight"):
        G = G.graph if isinstance(G, ApspGraph) else G
        nodes, d, _ = _distances(G, None, weight)
        result = {}
        for u, row in zip(nodes, d.tolist()):
            result[u] = defaultdict(lambda: float("inf"), zip(nodes, row))
        return result


def get_info():
    """The ``networkx.backend_info`` entry point."""
    return {
        "backend_name": "apsp",
        "project": "apsp",
        "package": "apsp",
        "short_summary": "All-pairs shortest paths by blocked Floyd-Warshall on OpenCL devices "
        "or CPU threads.",
        "functions": {name: {} for name in FUNCTIONS},
    }


__all__ = ["BackendInterface", "get_info"]
