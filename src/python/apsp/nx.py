"""A NetworkX backend (NetworkX >= 3.2: entry points ``networkx.backends`` and
``networkx.backend_info``, registered in pyproject.toml)::

    networkx.floyd_warshall_numpy(G, backend="apsp")
    networkx.floyd_warshall(G, backend="apsp")

Covered: floyd_warshall_numpy (a NumPy array, as NetworkX's) and floyd_warshall (a dict of
dicts, every pair present, inf for unreachable ones). Both give floyd_warshall_numpy's float64
numbers: whole-number weights are solved exactly in integers while float64 sums are exact too,
larger ones (1e19, 2**70) and fractions in float64. (NetworkX's own floyd_warshall adds Python
ints exactly: past 2^53 its integers may differ from these in the last digits.) Edge weights are the `weight` attribute
(1 where an edge lacks it); a multigraph's parallel edges keep the least. A graph with a negative
cycle raises networkx.NetworkXUnbounded where NetworkX's own floyd_warshall_numpy returns
meaningless numbers.
"""

from collections import defaultdict

import numpy as np

from . import _convert, _nx_search
from ._nx_search import ApspGraph
from ._nx_shortest import SHORTEST_PATH_FUNCTIONS, ShortestPaths
from ._solve import NegativeCycleError, default_solver



def _callable_weight(name, args, kwargs):
    """Whether the call passes a function as `weight` (apsp reads an attribute's name only)."""
    import inspect

    import networkx as nx

    try:
        bound = inspect.signature(getattr(nx, name)).bind(*args, **kwargs)
    except (AttributeError, TypeError):
        return False
    return callable(bound.arguments.get("weight"))


def _distances(G, nodelist, weight):
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
    try:
        d = _convert.output(default_solver().solve_matrix(w), np.dtype(np.float64))
    except NegativeCycleError as error:
        raise nx.NetworkXUnbounded(f"Negative cycle detected: {error}") from None
    return nodes, d


FUNCTIONS = ("floyd_warshall_numpy", "floyd_warshall") + SHORTEST_PATH_FUNCTIONS


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
    def floyd_warshall(G, weight="weight"):
        G = G.graph if isinstance(G, ApspGraph) else G
        nodes, d = _distances(G, None, weight)
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
