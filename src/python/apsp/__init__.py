"""apsp: all-pairs shortest paths by blocked Floyd-Warshall on OpenCL devices or CPU threads.

A drop-in for ``scipy.sparse.csgraph.floyd_warshall``::

    import apsp
    dist = apsp.floyd_warshall(graph)                      # as SciPy's, on the default device
    dist, pred = apsp.floyd_warshall(graph, return_predecessors=True)
    solver = apsp.Solver(device="host")                     # keep a device between calls
    dist = solver.floyd_warshall(graph, directed=False)

Chosen sources, as SciPy's: ``apsp.shortest_path(graph, method='D', indices=[0, 5])``,
``apsp.dijkstra``, ``apsp.johnson``, ``apsp.bellman_ford`` (apsp._sources says which graphs run
on the sparse methods), also as methods of a Solver. ``apsp.reconstruct_path(pred, i, j)`` and
``apsp.construct_dist_matrix`` read predecessor matrices. ``apsp.devices()`` lists the devices;
``networkx.floyd_warshall_numpy(G, backend="apsp")`` runs on apsp through the NetworkX backend
in apsp.nx. ``progress=`` takes a callable of (done, total); the logger "apsp" gets the
library's diagnostics and, at INFO, the figures ``apsp -v`` prints. ``python -m apsp`` is the
apsp command. ``apsp.from_pandas(df)`` and ``apsp.from_arrow(table)`` take an edge list with
named vertices and return the long table (source, target, distance) with the labels.
"""

import inspect

from . import _core
from ._batch import edge_paths, floyd_warshall_batch
from ._convert import INF32, INF64
from ._convert import unreachable as _unreachable
from ._paths import construct_dist_matrix, reconstruct_path
from ._solve import PREDECESSOR_TOLERANCE, DeviceError, Error, NegativeCycleError, Solver
from ._solve import default_solver as _default_solver
from ._solve import release
from ._tables import from_arrow, from_pandas

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
    "construct_dist_matrix",
    "devices",
    "dijkstra",
    "edge_paths",
    "floyd_warshall",
    "floyd_warshall_batch",
    "from_arrow",
    "from_pandas",
    "johnson",
    "reconstruct_path",
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
    progress=None,
):
    """All-pairs shortest paths, as ``scipy.sparse.csgraph.floyd_warshall``.

    Floating-point sums are rounded in the blocked order, not SciPy's: results may differ from
    SciPy's in the last bits (tests/python bound it: 1e-12 relative for float64, 1e-5 for
    float32).

    Parameters
    ----------
    csgraph : array_like, sparse matrix or pydata/sparse array
        A square dense array (zeros, inf, nan and float weights with |w| <= 1e-8 are no edge,
        as SciPy reads it), a SciPy sparse matrix or array (every explicit entry is an edge,
        zeros included; repeated entries keep the least) or a pydata/sparse array (as SciPy >=
        1.11: its stored entries, a stored 0 no edge; a fill value other than 0, inf or nan
        refused). Self-loops are ignored.
    directed : bool, optional
        False: edges go both ways.
    return_predecessors : bool, optional
        Also return SciPy's int32 predecessor matrix.
    unweighted : bool, optional
        Every edge weighs 1.
    overwrite : bool, optional
        As SciPy's: the distances (inf for no path) go into the input itself when it is a
        writable C-ordered float64 array (a masked one: its data), and into no other input.
    device, tile : optional
        As apsp.Solver; the solver for each setting is made once and kept, with the memory of
        its last call, until apsp.release().
    dtype : {None, int32, int64, float32, float64}, optional
        Solve and return that type, refusing (ValueError) a weight the type cannot hold; in
        integer results an unreachable pair holds apsp.INF32 (2^30 - 1) or apsp.INF64
        (2^62 - 1).
    progress : callable, optional
        Called as ``progress(done, total)`` after each round of the solve, on the calling
        thread; what it raises stops the solve and is raised here. A tqdm bar:
        ``progress=lambda done, total: bar.update(done - bar.n)``.

    Returns
    -------
    dist_matrix : ndarray
        N x N distances: float32 for float32 (and float16) input, float64 for float64 and for
        integer input (bool, int8 to uint64; SciPy's numbers: solved exactly in int32 or int64
        while SciPy's float64 sums are exact, else in float64 from the weights rounded as SciPy
        rounds them), inf where there is no path.
    predecessors : ndarray
        N x N int32, -9999 for none; returned with return_predecessors=True only.

    Raises
    ------
    apsp.NegativeCycleError
        The graph has a negative cycle (a scipy.sparse.csgraph.NegativeCycleError when SciPy is
        installed).
    KeyboardInterrupt
        Ctrl-C stops a solve within a few rounds.
    """
    return _default_solver(device, tile).floyd_warshall(
        csgraph,
        directed=directed,
        return_predecessors=return_predecessors,
        unweighted=unweighted,
        overwrite=overwrite,
        dtype=dtype,
        progress=progress,
    )


def _on_default_solver(name):
    """The module-level function of Solver's method `name`: the method on the default Solver,
    with its signature (less self) and docstring."""
    method = getattr(Solver, name)

    def function(*args, **kwargs):
        return getattr(_default_solver(), name)(*args, **kwargs)

    signature = inspect.signature(method)
    function.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])
    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__.replace("this Solver's", "the default Solver's")
    function.__module__ = __name__
    return function


shortest_path = _on_default_solver("shortest_path")
dijkstra = _on_default_solver("dijkstra")
johnson = _on_default_solver("johnson")
bellman_ford = _on_default_solver("bellman_ford")


def unreachable(dtype):
    """The marker of an unreachable pair in a matrix of the given type.

    Parameters
    ----------
    dtype : data-type
        The matrix's element type.

    Returns
    -------
    int or float
        apsp.INF32 for int32, apsp.INF64 for int64, inf for the floating-point types.
    """
    return _unreachable(dtype)


def devices():
    """Every device apsp can use.

    Returns
    -------
    list of dict
        The OpenCL devices, then apsp's own pthread backend (type 'host'), each with its index,
        backend, name, type, platform, driver, compute_units, global_memory, max_allocation,
        local_memory and max_work_group.
    """
    try:
        return _core.devices()
    except _core.Error as error:
        raise Error(error.args[0]) from None  # (no kernel build here)
