"""Solvers: an apsp_solver (a device opened and its kernels compiled) kept between calls, and
the module-level floyd_warshall's cache of them, one per setting."""

import os
import threading
import time

import numpy as np

from . import _convert, _core

try:  # `except scipy.sparse.csgraph.NegativeCycleError` catches apsp's too
    from scipy.sparse.csgraph import NegativeCycleError as _NegativeCycleBase
except ImportError:  # pragma: no cover - SciPy is optional
    _NegativeCycleBase = Exception


class Error(RuntimeError):
    """A failure of the apsp library (a device call, a kernel build, ...)."""


class DeviceError(Error):
    """The requested device or backend does not exist."""


class NegativeCycleError(_NegativeCycleBase):
    """The graph has a cycle of negative total weight: no shortest distances exist."""


# Relative tolerance of a tight edge for the predecessors of floating-point distances: the
# blocked order associates a path's sum otherwise than d(i,k) + w(k,j) does, a few ulps per hop.
PREDECESSOR_TOLERANCE = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def _raise(error):
    message, status, log = error.args
    if log:  # a kernel build's log
        message = f"{message}\n{log}"
    kind = {
        _core.NEGATIVE_CYCLE: NegativeCycleError,
        _core.USAGE: ValueError,
        _core.TOO_LARGE: MemoryError,
        _core.NO_MEMORY: MemoryError,
        _core.NO_DEVICE: DeviceError,
    }.get(status, Error)
    raise kind(message) from None


def _kernel_cache():
    """Where compiled OpenCL programs are kept, as the apsp command keeps them:
    $APSP_KERNEL_CACHE ('off': nowhere), else $XDG_CACHE_HOME/apsp or ~/.cache/apsp."""
    chosen = os.environ.get("APSP_KERNEL_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "apsp")


def predecessor_request(w, kernel):
    """(int32 predecessors array, solve_matrix's keywords that fill it) for w of the kernel
    type: w's edges are read now, before the solve overwrites w."""
    pred = np.empty(w.shape, dtype=np.int32)
    indptr, indices, weights = _convert.csr_of(w)
    return pred, dict(pred=pred, indptr=indptr, indices=indices, weights=weights,
                      tolerance=PREDECESSOR_TOLERANCE.get(np.dtype(kernel), 0.0))


class Solver:
    """A device opened and its kernels compiled once, for any number of solves.

    device: None (a GPU if there is one, else the CPU threads), an index of apsp.devices(), a
    type word ('gpu', 'cpu': an OpenCL CPU device such as PoCL, 'host': apsp's own pthread
    backend) or a substring of a device's name. backend: None/'auto', 'cpu' (the pthread
    backend) or 'opencl'. tile: the OpenCL round depth (None: the device's). threads: host
    threads of the pthread backend and of the copies into and out of the matrix (None: every
    core this process may run on).

    A float32 or float64 graph whose weights are all whole numbers, with every sum of two
    distances exact in its type, is solved by the integer kernels and converted back: the same
    bits as the float kernels give, faster. last_report's "kernels" and "kernels_why" say which
    ran and why; float_kernels=True always takes the float kernels.

    The padded matrix of the last call (the solver's own: page-locked memory on a GPU, which
    moves to and from the device several times faster) and the device's buffers are kept for the
    next call of the same size and type, and released by a call of another size or type, a
    failed one, or the Solver's end: a Solver that solved a large graph holds its memory until
    close() (or the end of a ``with`` block) gives it back, with the device.
    """

    def __init__(
        self,
        device=None,
        backend=None,
        tile=None,
        threads=None,
        *,
        device_memory=None,
        float_kernels=False,
    ):
        self._solver = None
        self._threads = threads or 0
        try:
            self._solver = _core.Solver(
                backend=backend,
                device=None if device is None else str(device),
                tile=tile or 0,
                threads=threads or 0,
                kernel_cache=_kernel_cache(),
                device_memory=device_memory or 0,
                float_kernels=bool(float_kernels),
            )
        except _core.Error as error:
            _raise(error)
        self.last_report = None  # dict: backend, device, tile, timings of the last solve

    def close(self):
        """Gives back the device, its buffers and the kept matrix now; later calls raise
        apsp.Error. Closing twice is harmless."""
        self._solver = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _open(self):
        if self._solver is None:
            raise Error("this apsp.Solver was closed")
        return self._solver

    def solve_matrix(self, w, **predecessors):
        """Distances in place of a C-ordered square int32, int64, float32 or float64 matrix of
        edge weights: apsp.unreachable(w.dtype) where there is no edge, 0 on the diagonal."""
        solver = self._open()
        try:
            self.last_report = solver.solve(w, **predecessors)
        except _core.Error as error:
            _raise(error)
        return w

    def _solve_into(self, d, start, solve, *args):
        """d, which the extension's `solve` (solve_dense, solve_csr) fills from args; last_report
        its report with the package's time since `start` (perf_counter) as convert_seconds."""
        convert = time.perf_counter() - start
        try:
            report = solve(*args)
        except _core.Error as error:
            _raise(error)
        self.last_report = dict(report, convert_seconds=convert, output_seconds=0.0)
        return d

    def floyd_warshall(
        self,
        csgraph,
        directed=True,
        return_predecessors=False,
        unweighted=False,
        overwrite=False,
        *,
        dtype=None,
    ):
        """As scipy.sparse.csgraph.floyd_warshall; apsp.floyd_warshall says what differs.

        last_report adds the call's parts to the library's times: convert_seconds (the
        package's NumPy work before the solve), copy_in_seconds (into the padded matrix),
        copy_out_seconds and output_seconds (the package's NumPy work after)."""
        solver = self._open()
        start = time.perf_counter()
        fast = None if return_predecessors else _convert.dense_fast(csgraph, unweighted, dtype,
                                                                     overwrite, self._threads)
        if fast:
            graph, kernel, d = fast
            return self._solve_into(d, start, solver.solve_dense, graph, d, kernel.name, directed,
                                    unweighted)
        sparse = None if return_predecessors else _convert.csr_fast(csgraph, unweighted, dtype)
        if sparse:
            indptr, indices, data, kernel, d, columns = sparse
            return self._solve_into(d, start, solver.solve_csr, indptr, indices, data, d,
                                    kernel.name, directed, unweighted, columns)
        w, kernel, out = _convert.weight_matrix(csgraph, directed, unweighted, dtype, overwrite)
        convert = time.perf_counter() - start
        pred, extra = predecessor_request(w, kernel) if return_predecessors else (None, {})
        self.solve_matrix(w, **extra)
        start = time.perf_counter()
        d = _convert.output(w, out)
        self.last_report.update(convert_seconds=convert, output_seconds=time.perf_counter() - start)
        return (d, pred) if return_predecessors else d


_solvers = {}
_solvers_lock = threading.Lock()


def release():
    """The module-level functions' solvers given back: their devices, buffers and kept matrices
    (page-locked memory on a GPU, 1.6 GB after a 20000-vertex float32 call). The next call makes
    a new one."""
    with _solvers_lock:
        solvers = list(_solvers.values())
        _solvers.clear()
    for solver in solvers:
        solver.close()


def default_solver(device=None, tile=None):
    """The solver the module-level functions use for these settings, made on first use."""
    key = (None if device is None else str(device), tile or 0)
    with _solvers_lock:
        solver = _solvers.get(key)
        if solver is None:
            solver = _solvers[key] = Solver(device=device, tile=tile)
        return solver
