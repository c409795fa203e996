"""Solvers: an apsp_solver (a device opened and its kernels compiled) kept between calls, and
the module-level functions' cache of them, one per setting. Each call runs through Solver._call:
the progress callable handed to the library, its diagnostics and the -v figures given to the
logging module (logger "apsp"), the library's errors raised as the package's exceptions."""

import logging
import os
import re
import threading
import time

import numpy as np

from . import _convert, _core, _sources

log = logging.getLogger("apsp")
# apsp_log_level's numbers (include/apsp.h) as logging's levels.
LOG_LEVELS = {0: logging.ERROR, 1: logging.INFO, 2: logging.DEBUG, 3: logging.WARNING}

try:  # `except scipy.sparse.csgraph.NegativeCycleError` catches apsp's too
    from scipy.sparse.csgraph import NegativeCycleError as _NegativeCycleBase
except ImportError:  # pragma: no cover - SciPy is optional
    _NegativeCycleBase = Exception


class Error(RuntimeError):
    """A failure of the apsp library (a device call, a kernel build, ...)."""

    __module__ = "apsp"  # (tracebacks name apsp.Error, where users catch it)


class DeviceError(Error):
    """The requested device or backend does not exist."""

    __module__ = "apsp"


class NegativeCycleError(_NegativeCycleBase):
    """The graph has a cycle of negative total weight: no shortest distances exist."""

    __module__ = "apsp"


# Relative tolerance of a tight edge for the predecessors of floating-point distances: the
# blocked order associates a path's sum otherwise than d(i,k) + w(k,j) does, a few ulps per hop.
PREDECESSOR_TOLERANCE = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def python_words(message):
    """The library's message with the apsp command's option syntax put as the Python keyword:
    "--tile=100: ..." reads "tile=100: ...", "--device-memory" "device_memory"."""
    return re.sub(r"(?<![\w-])--([a-z][a-z-]*)", lambda m: m.group(1).replace("-", "_"), message)


def _raise(error):
    message, status, build_log = error.args
    message = python_words(message)
    if build_log:  # a kernel build's log
        message = f"{message}\n{build_log}"
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


def _positive(name, value, most, default_word):
    """value as an int, None kept; outside 1 to `most` refused (ValueError, in the keyword's
    words). The ranges are apsp's --tile and --threads, the library's APSP_TILE_MAX and
    APSP_THREADS_MAX (_core.TILE_MAX, _core.THREADS_MAX)."""
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1
            or value > most):
        raise ValueError(f"{name}={value!r}: expected a positive integer up to {most}, or None "
                         f"for {default_word}")
    return int(value)


def _log_report(report, n):
    """The figures `apsp -v` prints, as INFO lines of the logger "apsp"."""
    if not log.isEnabledFor(logging.INFO) or not report:
        return
    r = dict(report)
    padded = r.get("padded", 0)
    if padded:
        log.info("backend %s on %s; V = %d padded to %d; round depth %d; programs built %d",
                 r.get("backend"), r.get("device"), n, padded, r.get("tile", 0),
                 r.get("program_builds", 0))
    else:  # the sparse methods: no padded matrix, no rounds
        log.info("backend %s on %s; V = %d", r.get("backend"), r.get("device"), n)
    if r.get("choice"):
        log.info("chosen by %s", r["choice"])
    if r.get("method"):
        log.info("method: %s", r["method"])
    if r.get("kernels_why"):
        log.info("kernels: %s (%.3f s choosing and converting)", r["kernels_why"],
                 r.get("whole_seconds", 0.0))
    compute = r.get("compute_seconds", 0.0)
    rate = padded**3 / compute / 1e9 if compute > 0 else 0.0
    log.info("convert %.3f s, copy in %.3f s, setup %.3f s, upload %.3f s, compute %.3f s "
             "(%.2f G relax/s), download %.3f s, release %.3f s, copy out %.3f s, output %.3f s",
             r.get("convert_seconds", 0.0), r.get("copy_in_seconds", 0.0),
             r.get("setup_seconds", 0.0), r.get("upload_seconds", 0.0), compute, rate,
             r.get("download_seconds", 0.0), r.get("release_seconds", 0.0),
             r.get("copy_out_seconds", 0.0), r.get("output_seconds", 0.0))


class Solver(_sources.SourcesMethods):
    """A device opened and its kernels compiled once, for any number of solves.

    A float32 or float64 graph whose weights are all whole numbers, with every sum of two
    distances exact in its type, is solved by the integer kernels and converted back: the same
    bits as the float kernels give, faster. ``last_report``'s "kernels" and "kernels_why" say
    which ran and why; ``float_kernels=True`` always takes the float kernels.

    The padded matrix of the last call (the solver's own: page-locked memory on a GPU, which
    moves to and from the device several times faster) and the device's buffers are kept for the
    next call of the same size and type, and released by a call of another size or type, a
    failed one, or the Solver's end: a Solver that solved a large graph holds its memory until
    ``close()`` (or the end of a ``with`` block) gives it back, with the device.

    Parameters
    ----------
    device : int or str, optional
        None: a GPU if there is one, else the CPU threads; an index of ``apsp.devices()``; a
        type word ('gpu', 'cpu': an OpenCL CPU device such as PoCL, 'host': apsp's own
        pthread backend); or a substring of a device's name.
    backend : {None, 'auto', 'cpu', 'opencl'}, optional
        'cpu' is the pthread backend.
    tile : int, optional
        The OpenCL round depth, 1 to 1024 as apsp's ``--tile`` (None: the device's own).
    threads : int, optional
        Host threads of the pthread backend, of the sparse methods and of the copies into and
        out of the matrix, 1 to 4096 as apsp's ``--threads`` (None: every core this process may
        run on; 0 is refused).
    device_memory : int, optional
        Bytes of the OpenCL device's memory apsp may use (None: all of it); a larger matrix
        streams through the device from host memory.
    float_kernels : bool, optional
        Always take the floating-point kernels for float input.

    Attributes
    ----------
    last_report : dict or None
        The last solve's backend, device, tile and timings.

    Raises
    ------
    apsp.DeviceError
        No such device or backend.
    ValueError
        A setting out of range (threads=0, tile=2048, an unknown backend).
    """

    __module__ = "apsp"

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
        tile = _positive("tile", tile, _core.TILE_MAX, "the device's own")
        threads = _positive("threads", threads, _core.THREADS_MAX, "every core")
        self._settings = dict(device=device, backend=backend, tile=tile, threads=threads)
        self._threads = threads or 0
        self._lock = threading.Lock()  # one call at a time: its progress callable and log
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
        self._emit_log()
        self.last_report = None  # dict: backend, device, tile, timings of the last solve

    def __repr__(self):
        shown = ", ".join(f"{k}={v!r}" for k, v in self._settings.items() if v is not None)
        if self._solver is None:
            state = "closed"
        elif self.last_report:
            state = "last ran on {device} ({backend} backend)".format(**self.last_report)
        else:
            state = "not used yet"
        return f"<apsp.Solver({shown}): {state}>"

    def close(self):
        """Give back the device, its buffers and the kept matrix now.

        Later calls raise apsp.Error. Closing twice is harmless.

        Returns
        -------
        None
        """
        self._solver = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _open(self):
        if self._solver is None:
            raise Error("this apsp.Solver was closed")
        return self._solver

    def _emit_log(self):
        for level, text in self._solver.take_log() if self._solver is not None else ():
            log.log(LOG_LEVELS.get(level, logging.INFO), "%s", text)

    def _call(self, progress, solve, *args, **kwargs):
        """The extension's `solve`(*args, **kwargs) with the progress callable (called with
        (done, total) between rounds, on the calling thread; what it raises stops the solve and
        is raised here) and the library's diagnostics logged; its report, which last_report
        takes. The library's errors become the package's exceptions."""
        solver = self._open()
        with self._lock:
            solver.set_progress(progress)
            try:
                report = solve(*args, **kwargs)
            except _core.Error as error:
                _raise(error)
            finally:
                solver.set_progress(None)
                self._emit_log()
        self.last_report = report
        return report

    def _log_last(self, n):
        """The last report's figures to the logger "apsp" at INFO, as `apsp -v` prints them."""
        _log_report(self.last_report, n)

    def solve_matrix(self, w, progress=None, **predecessors):
        """Solve a weight matrix in place, with no conversion.

        Parameters
        ----------
        w : ndarray
            A C-ordered square int32, int64, float32 or float64 matrix of edge weights:
            ``apsp.unreachable(w.dtype)`` where there is no edge, 0 on the diagonal.
        progress : callable, optional
            Called as ``progress(done, total)`` between rounds.
        **predecessors
            The extension's predecessor request (``pred``, ``indptr``, ``indices``,
            ``weights``, ``tolerance``), as apsp._solve.predecessor_request makes it.

        Returns
        -------
        ndarray
            w itself, now holding the distances.
        """
        solver = self._open()
        self._call(progress, solver.solve, w, **predecessors)
        return w

    def _solve_into(self, d, start, progress, solve, *args):
        """d, which the extension's `solve` (solve_dense, solve_csr) fills from args; last_report
        its report with the package's time since `start` (perf_counter) as convert_seconds."""
        convert = time.perf_counter() - start
        report = self._call(progress, solve, *args)
        self.last_report = dict(report, convert_seconds=convert, output_seconds=0.0)
        self._log_last(d.shape[0])
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
        progress=None,
    ):
        """All-pairs shortest paths on this Solver's device, as scipy.sparse.csgraph.floyd_warshall.

        ``last_report`` adds the call's parts to the library's times: convert_seconds (the
        package's NumPy work before the solve), copy_in_seconds (into the padded matrix),
        copy_out_seconds and output_seconds (the package's NumPy work after).

        Parameters
        ----------
        csgraph : array_like, sparse matrix or pydata/sparse array
            The graph, N x N, as apsp.floyd_warshall reads it.
        directed, return_predecessors, unweighted, overwrite : bool, optional
            As SciPy's.
        dtype : {None, int32, int64, float32, float64}, optional
            Solve and return this type (integer results hold apsp.INF32 or apsp.INF64 where
            there is no path).
        progress : callable, optional
            Called as ``progress(done, total)`` after each round of the solve.

        Returns
        -------
        dist_matrix : ndarray
            N x N distances (inf where there is no path).
        predecessors : ndarray
            N x N int32, -9999 for none; returned with return_predecessors=True only.

        Raises
        ------
        apsp.NegativeCycleError
            The graph has a negative cycle.
        """
        solver = self._open()
        start = time.perf_counter()
        fast = None if return_predecessors else _convert.dense_fast(csgraph, unweighted, dtype,
                                                                     overwrite, self._threads)
        if fast:
            graph, kernel, d = fast
            return self._solve_into(d, start, progress, solver.solve_dense, graph, d, kernel.name,
                                    directed, unweighted)
        sparse = None if return_predecessors else _convert.csr_fast(csgraph, unweighted, dtype)
        if sparse:
            indptr, indices, data, kernel, d, columns = sparse
            return self._solve_into(d, start, progress, solver.solve_csr, indptr, indices, data,
                                    d, kernel.name, directed, unweighted, columns)
        w, kernel, out = _convert.weight_matrix(csgraph, directed, unweighted, dtype, overwrite)
        convert = time.perf_counter() - start
        pred, extra = predecessor_request(w, kernel) if return_predecessors else (None, {})
        if extra:
            extra["threads"] = self._threads  # (the derivation's, as the copies')
        self.solve_matrix(w, progress, **extra)
        start = time.perf_counter()
        d = _convert.output(w, out)
        self.last_report.update(convert_seconds=convert, output_seconds=time.perf_counter() - start)
        self._log_last(d.shape[0])
        return (d, pred) if return_predecessors else d


_solvers = {}
_solvers_lock = threading.Lock()


def release():
    """Give back the module-level functions' solvers.

    Their devices, buffers and kept matrices (page-locked memory on a GPU, 1.6 GB after a
    20000-vertex float32 call) are released; the next call makes a new one.

    Returns
    -------
    None
    """
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
