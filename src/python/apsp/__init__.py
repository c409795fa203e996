"""apsp: all-pairs shortest paths by blocked Floyd-Warshall on OpenCL devices or CPU threads.

A drop-in for ``scipy.sparse.csgraph.floyd_warshall``::

    import apsp
    dist = apsp.floyd_warshall(graph)                      # as SciPy's, on the default device
    dist, pred = apsp.floyd_warshall(graph, return_predecessors=True)
    solver = apsp.Solver(device="host")                     # keep a device between calls
    dist = solver.floyd_warshall(graph, directed=False)

Chosen sources, as SciPy's: ``apsp.shortest_path(graph, method='D', indices=[0, 5])``,
``apsp.dijkstra``, ``apsp.johnson``, ``apsp.bellman_ford`` (apsp._sources says which graphs run
on the sparse methods). ``apsp.devices()`` lists the devices; ``networkx.floyd_warshall_numpy(G, backend="apsp")`` runs
on apsp through the NetworkX backend in apsp.nx.
"""

from . import _core
from ._batch import edge_paths, floyd_warshall_batch
from ._convert import INF32, INF64, unreachable
from ._solve import PREDECESSOR_TOLERANCE, DeviceError, Error, NegativeCycleError, Solver
from ._solve import default_solver as _default_solver
from ._solve import release
from ._sources import bellman_ford, dijkstra, johnson, shortest_path

__version__ = _core.version
__all__ = [
    "DeviceError",
    "Error",
    "INF32",
    "INF64",
    "NegativeCycleError",
    "PREDECESSOR_TOLERANCE",
    "Solver",
    "bellman_ford",
    "devices",
    "dijkstra",
    "edge_paths",
    "floyd_warshall",
    "floyd_warshall_batch",
    "johnson",
    "release",
    "shortest_path",
    "unreachable",
]


def floyd_warshall(
    csgraph,
    directed=True,
    return_predecessors=False,
    unweighted=False,
    overwrite=False,
    *,
    device=None,
    tile=None,
    dtype=None,
):
    """All-pairs shortest paths, as ``scipy.sparse.csgraph.floyd_warshall``.

    csgraph: a square dense array (zeros, inf and nan are no edge), a SciPy sparse matrix or
    array (every explicit entry is an edge, zeros included; repeated entries keep the least) or
    a pydata/sparse array (as SciPy >= 1.11: its stored entries, a stored 0 no edge; a fill
    value other than 0, inf or nan refused). Self-loops are ignored. directed=False: edges go
    both ways; unweighted=True: every edge weighs 1. overwrite=True: as SciPy's, the distances
    (inf for no path) go into the input itself when it is a writable C-ordered float64 array (a
    masked one: its data), and into no other input.

    Returns the distances (and with return_predecessors, SciPy's int32 predecessor matrix,
    -9999 for none) as NumPy arrays: float32 for float32 (and float16) input, float64 for
    float64. Integer input (bool, int8 to int64, uint8 to uint64) is returned as float64 with
    inf, SciPy's numbers: solved exactly in int32 (or int64 when a distance could pass 2^30)
    while SciPy's float64 sums are exact too ((n - 1) * max |w| <= 2^52), else in float64 from
    the weights rounded to float64 as SciPy rounds them (int64 -2^63, uint64 past 2^63, sums
    past 2^53). dtype=np.int32, np.int64, np.float32 or np.float64 solves and returns that type,
    refusing (ValueError) a weight the type cannot hold; in integer results an unreachable pair
    holds apsp.INF32 (2^30 - 1) or apsp.INF64 (2^62 - 1).

    Floating-point sums are rounded in the blocked order, not SciPy's: results may differ from
    SciPy's in the last bits (tests/python bound it: 1e-12 relative for float64, 1e-5 for
    float32).

    device, tile: as apsp.Solver; the solver for each setting is made once and kept, with the
    memory of its last call, until apsp.release().
    Raises apsp.NegativeCycleError (a scipy.sparse.csgraph.NegativeCycleError when SciPy is
    installed) for a graph with a negative cycle; KeyboardInterrupt stops a solve cleanly.
    """
    return _default_solver(device, tile).floyd_warshall(
        csgraph,
        directed=directed,
        return_predecessors=return_predecessors,
        unweighted=unweighted,
        overwrite=overwrite,
        dtype=dtype,
    )


def devices():
    """Every device apsp can use, as dicts (index, backend, name, type, platform, memory, ...):
    the OpenCL devices, then apsp's own pthread backend (type 'host')."""
    try:
        return _core.devices()
    except _core.Error as error:
        raise Error(error.args[0]) from None  # (no kernel build here)
