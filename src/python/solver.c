/* apsp._core.Solver: an apsp_solver with the padded matrix of its last call, and its methods:
 * solve (the caller's matrix in place, with the predecessors when asked), solve_dense (SciPy's
 * dense reading, dense_copy.c), solve_csr (SciPy's sparse reading: solve_csr.c, csr_copy.c) and
 * solve_sources (solve_sources.c). Each solve runs without the
 * GIL, one at a time under the Solver's lock. */
#include "core.h"

#include "base/util.h"

#include <pythread.h>
#include <stdlib.h>
#include <string.h>

static void solver_dealloc(SolverObject *self) {
    apsp_matrix_destroy(self->matrix);
    apsp_solver_destroy(self->solver);
    if (self->lock)
        PyThread_free_lock(self->lock);
    free(self->device);
    free(self->kernel_cache);
    free(self->build_log);
    Py_XDECREF(self->progress);
    solver_free_log(self);
    /* A heap type (PyType_FromSpec): its instances hold a reference to it. */
    PyTypeObject *type = Py_TYPE((PyObject *)self);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    tp_free(self);
    Py_DECREF(type);
}

/* Solver(backend=None, device=None, tile=0, threads=0, kernel_cache=None, device_memory=0,
 * float_kernels=False): opens the device and compiles its kernels, with the GIL released. */
static int solver_init(SolverObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"backend",      "device",        "tile",          "threads",
                               "kernel_cache", "device_memory", "float_kernels", NULL};
    const char *backend = NULL, *device = NULL, *kernel_cache = NULL;
    int tile = 0, threads = 0, float_kernels = 0;
    unsigned long long device_memory = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zziizKp", keywords, &backend, &device, &tile,
                                     &threads, &kernel_cache, &device_memory, &float_kernels))
        return -1;
    if (self->solver) {
        PyErr_SetString(PyExc_RuntimeError, "Solver.__init__ called twice");
        return -1;
    }
    apsp_options o;
    apsp_options_init(&o);
    if (backend && apsp_backend_parse(backend, &o.backend) != 0) {
        PyObject *names = library_names(LIST_BACKENDS);
        PyObject *list = names ? PySequence_List(names) : NULL;
        if (list)
            PyErr_Format(PyExc_ValueError, "backend=%s: expected one of %R", backend, list);
        Py_XDECREF(list);
        Py_XDECREF(names);
        return -1;
    }
    if (tile < 0 || threads < 0) {
        PyErr_SetString(PyExc_ValueError, "tile and threads must be positive (0: the default)");
        return -1;
    }
    self->device = copy_text(device && *device ? device : NULL);
    self->kernel_cache = copy_text(kernel_cache);
    self->lock = PyThread_allocate_lock();
    if ((device && *device && !self->device) || (kernel_cache && !self->kernel_cache) ||
        !self->lock) {
        PyErr_NoMemory();
        return -1;
    }
    o.device = self->device;
    o.kernel_cache = self->kernel_cache;
    o.tile = tile;
    o.threads = threads;
    self->threads = (unsigned)threads;
    o.device_memory = device_memory;
    o.float_kernels = float_kernels;
    o.cancelled = solver_cancel_requested;
    o.cancel_context = self;
    o.progress = solver_progress;
    o.progress_context = self;
    o.log = solver_keep_log;
    o.log_context = self;
    apsp_error err;
    apsp_status status;
    PyThreadState *thread = PyEval_SaveThread();
    status = apsp_solver_create(&o, &self->solver, &err);
    PyEval_RestoreThread(thread);
    if (status != APSP_OK) {
        raise_error_log(&err, self->build_log);
        return -1;
    }
    return 0;
}

/* The padded matrix of n vertices of `dtype` for a call: the kept one when it has that size and
 * type (its padding as made), else a new one from the solver. Under self->lock. */
static apsp_status take_matrix(SolverObject *self, size_t n, apsp_dtype dtype, apsp_error *err) {
    apsp_matrix *m = self->matrix;
    if (m && m->n == n && m->dtype == dtype)
        return APSP_OK;
    apsp_matrix_destroy(m); /* before the new one: pinned memory is scarce */
    self->matrix = NULL;
    return apsp_solver_matrix_create(self->solver, n, dtype, &self->matrix, err);
}

/* After the call: a failed solve may have left the padding other than made (and the distances
 * none), so the matrix goes; a successful one's stays for the next call. */
static void settle_matrix(SolverObject *self, apsp_status status) {
    if (status != APSP_OK) {
        apsp_matrix_destroy(self->matrix);
        self->matrix = NULL;
    }
}

/* Copies the caller's rows into the padded matrix, solves, derives the predecessors when asked
 * and copies the distances back. Runs without the GIL, under self->lock. */
static apsp_status solve_buffer(SolverObject *self, const array_view *view, apsp_dtype dtype,
                                size_t n, const pred_request *p, apsp_report *report,
                                double seconds[2], apsp_error *err) {
    double start = seconds_now();
    apsp_status status = take_matrix(self, n, dtype, err);
    if (status != APSP_OK)
        return status;
    apsp_matrix *m = self->matrix;
    const size_t row_bytes = n * apsp_dtype_size(dtype);
    for (size_t i = 0; i < n; i++)
        memcpy(apsp_matrix_row_cells(m, i), (const char *)view->buf + i * row_bytes, row_bytes);
    seconds[0] = seconds_now() - start;
    status = apsp_solver_solve(self->solver, m, report, err);
    if (status == APSP_OK && p->have)
        status = fw_predecessors(m, p, err);
    start = seconds_now();
    for (size_t i = 0; status == APSP_OK && i < n; i++)
        memcpy((char *)view->buf + i * row_bytes, apsp_matrix_row_cells(m, i), row_bytes);
    settle_matrix(self, status);
    seconds[1] = seconds_now() - start;
    return status;
}

/* c->m's n x n cells (self->matrix, as dense_copy_in or csr_copy_in made them) solved by rows
 * into c->out; self->matrix is kept, as a failed solve leaves it too (the library's is the
 * solved one). Without the GIL, under self->lock. */
static apsp_status solve_matrix_rows(SolverObject *self, dense_copy *c, apsp_report *report,
                                     double seconds[2], apsp_error *err) {
    c->m = self->matrix;
    const apsp_row_io io = dense_copy_matrix_rows(c);
    apsp_status status = apsp_solver_solve_rows(self->solver, c->n, c->kernel, &io, report, err);
    c->m = NULL;
    seconds[0] += report->rows_in_seconds;
    seconds[1] = report->rows_out_seconds;
    return status;
}

/* Fills the padded matrix's n x n cells from the caller's array, solves and writes the distances
 * out, with the copies on every core (the pthread backend's solve uses them too; a GPU's leaves
 * them idle). Directed graphs go by rows (apsp_solver_solve_rows: the library's own padded
 * matrix, read straight into the integer one for whole floats, the distances straight into
 * c->out); an undirected one needs its whole matrix for the lesser of the two directions, so it
 * is made in the extension's, then solved by rows as well. Runs without the GIL, under
 * self->lock. */
static apsp_status solve_dense_buffer(SolverObject *self, dense_copy *c, int directed,
                                      apsp_report *report, double seconds[2], apsp_error *err) {
    if (directed) {
        apsp_matrix_destroy(self->matrix); /* the library keeps its own: pinned memory is scarce */
        self->matrix = NULL;
        const apsp_row_io io = dense_copy_rows(c);
        apsp_status status =
            apsp_solver_solve_rows(self->solver, c->n, c->kernel, &io, report, err);
        seconds[0] = report->rows_in_seconds;
        seconds[1] = report->rows_out_seconds;
        return status;
    }
    double start = seconds_now();
    apsp_status status = take_matrix(self, c->n, c->kernel, err);
    if (status != APSP_OK)
        return status;
    c->m = self->matrix;
    dense_copy_in(c, directed);
    seconds[0] = seconds_now() - start;
    return solve_matrix_rows(self, c, report, seconds, err);
}

/* The compressed graph into the padded matrix, solved by rows into c->out. Runs without the
 * GIL, under self->lock. */
apsp_status solve_csr_buffer(SolverObject *self, const csr_copy *g, dense_copy *c,
                             apsp_report *report, double seconds[2], apsp_error *err) {
    double start = seconds_now();
    apsp_status status = take_matrix(self, g->n, c->kernel, err);
    if (status != APSP_OK)
        return status;
    if (csr_copy_in(g, self->matrix) != 0) {
        snprintf(err->message, sizeof err->message,
                 "graph: an entry of indptr or indices is out of range for %zu vertices; pass a "
                 "valid SciPy sparse matrix",
                 g->n);
        return err->status = APSP_ERR_USAGE;
    }
    seconds[0] = seconds_now() - start;
    return solve_matrix_rows(self, c, report, seconds, err);
}

static PyObject *report_dict(const apsp_report *r) {
    return Py_BuildValue(
        "{s:s,s:s,s:n,s:i,s:i,s:i,s:d,s:d,s:d,s:d,s:i,s:s,s:s,s:s,s:d,s:d}", "backend", r->backend,
        "device", r->device, "padded", (Py_ssize_t)r->padded, "tile", r->tile, "threads",
        r->threads, "program_builds", r->program_builds, "setup_seconds", r->setup_seconds,
        "upload_seconds", r->upload_seconds, "compute_seconds", r->compute_seconds,
        "download_seconds", r->download_seconds, "streamed", r->streamed, "choice", r->choice,
        "kernels", apsp_dtype_name(r->kernels), "kernels_why", r->kernels_why, "whole_seconds",
        r->whole_seconds, "release_seconds", r->release_seconds);
}

/* The report with the copies' seconds, which the library's report does not see. */
static PyObject *report_with_copies(const apsp_report *r, const double seconds[2]) {
    PyObject *dict = report_dict(r);
    PyObject *in = dict ? PyFloat_FromDouble(seconds[0]) : NULL;
    PyObject *out = in ? PyFloat_FromDouble(seconds[1]) : NULL;
    if (!out || PyDict_SetItemString(dict, "copy_in_seconds", in) != 0 ||
        PyDict_SetItemString(dict, "copy_out_seconds", out) != 0)
        Py_CLEAR(dict);
    Py_XDECREF(in);
    Py_XDECREF(out);
    return dict;
}

/* One solve from Python (solve_call, core.h): the GIL released and the Solver's lock held. */
void call_begin(SolverObject *self, solve_call *call) {
    memset(call, 0, sizeof *call);
    call->thread = PyEval_SaveThread();
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    free(self->build_log); /* (this solve's log only) */
    self->build_log = NULL;
    self->progress_failed = 0;
}

void call_end(SolverObject *self, solve_call *call) {
    PyThread_release_lock(self->lock);
    PyEval_RestoreThread(call->thread);
}

PyObject *call_result(SolverObject *self, const solve_call *call) {
    if (PyErr_Occurred()) /* the progress function's, or a signal handler's (KeyboardInterrupt) */
        return NULL;
    if (call->status != APSP_OK)
        return raise_error_log(&call->err, self->build_log);
    return report_with_copies(&call->report, call->seconds);
}

/* solve(matrix, pred=None, indptr=None, indices=None, weights=None, tolerance=0.0, threads=0):
 * the distances of a square C-contiguous int32, int64, float32 or float64 matrix, in place;
 * with pred, SciPy's predecessor matrix of the CSR graph (indptr int64, indices int32, weights
 * of the matrix's type) into it. Returns the solve's report as a dict. */
static PyObject *solver_solve(SolverObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"matrix",  "pred",      "indptr",  "indices",
                               "weights", "tolerance", "threads", NULL};
    PyObject *matrix, *pred = Py_None, *indptr = Py_None, *indices = Py_None, *weights = Py_None;
    pred_request p = {.have = 0};
    unsigned threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOOdI", keywords, &matrix, &pred, &indptr,
                                     &indices, &weights, &p.tolerance, &threads))
        return NULL;
    p.threads = threads;
    if (!self->solver) {
        PyErr_SetString(PyExc_RuntimeError, "the Solver was not initialized");
        return NULL;
    }
    array_view view;
    if (array_view_get(matrix, &view, ARRAY_WRITABLE | ARRAY_C_CONTIGUOUS) != 0)
        return NULL;
    int dtype = dtype_of(&view);
    if (view.ndim != 2 || view.shape[0] != view.shape[1] || dtype < 0) {
        PyErr_SetString(
            PyExc_ValueError,
            "expected a square C-contiguous matrix of int32, int64, float32 or float64");
        array_view_release(&view);
        return NULL;
    }
    const Py_ssize_t n = view.shape[0];
    if (pred_request_get(pred, indptr, indices, weights, dtype, n, &p) != 0) {
        array_view_release(&view);
        return NULL;
    }
    solve_call call;
    call_begin(self, &call);
    if (n > 0)
        call.status = solve_buffer(self, &view, (apsp_dtype)dtype, (size_t)n, &p, &call.report,
                                   call.seconds, &call.err);
    call_end(self, &call);
    pred_request_release(&p);
    array_view_release(&view);
    return call_result(self, &call);
}

/* solve_dense(graph, out, dtype, directed=True, unweighted=False): the distances of a square
 * int32, int64, float32 or float64 array in SciPy's dense meaning (0, NaN and +-inf: no edge;
 * the diagonal ignored), read in any layout, solved in `dtype` (the graph's type, or the other
 * integer width) and written into `out`, a C-contiguous square array of `dtype` or, for an
 * integer `dtype`, float64 (inf for the marker); `out` may be the graph itself. Returns the
 * report. */
static PyObject *solver_solve_dense(SolverObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"graph", "out", "dtype", "directed", "unweighted", NULL};
    PyObject *graph, *out;
    const char *kernel_name;
    int directed = 1, unweighted = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOs|pp", keywords, &graph, &out, &kernel_name,
                                     &directed, &unweighted))
        return NULL;
    if (!self->solver) {
        PyErr_SetString(PyExc_RuntimeError, "the Solver was not initialized");
        return NULL;
    }
    apsp_dtype kernel;
    if (apsp_dtype_parse(kernel_name, &kernel) != 0) {
        PyErr_Format(PyExc_ValueError, "dtype=%s: expected int32, int64, float32 or float64",
                     kernel_name);
        return NULL;
    }
    array_view in_view, out_view;
    if (array_view_get(graph, &in_view, 0) != 0)
        return NULL;
    const int from = dtype_of(&in_view);
    const int integer = kernel == APSP_INT32 || kernel == APSP_INT64;
    if (in_view.ndim != 2 || in_view.shape[0] != in_view.shape[1] || from < 0 ||
        (from != (int)kernel && !(integer && (from == APSP_INT32 || from == APSP_INT64)))) {
        PyErr_Format(PyExc_ValueError, "graph: expected a square matrix of %s%s",
                     apsp_dtype_name(kernel), integer ? " or the other integer width" : "");
        array_view_release(&in_view);
        return NULL;
    }
    const Py_ssize_t n = in_view.shape[0];
    if (array_view_get(out, &out_view, ARRAY_WRITABLE | ARRAY_C_CONTIGUOUS) != 0) {
        array_view_release(&in_view);
        return NULL;
    }
    const int out_type = dtype_of(&out_view);
    if ((out_type != (int)kernel && !(integer && out_type == APSP_FLOAT64)) ||
        out_view.len != n * n * out_view.itemsize) {
        PyErr_Format(PyExc_ValueError, "out: expected %zd x %zd contiguous items of %s%s", n, n,
                     apsp_dtype_name(kernel), integer ? " or float64" : "");
        array_view_release(&out_view);
        array_view_release(&in_view);
        return NULL;
    }
    dense_copy copy = {
        .src = in_view.buf,
        .row_step = in_view.strides[0],
        .col_step = in_view.strides[1],
        .from = (apsp_dtype)from,
        .n = (size_t)n,
        .kernel = kernel,
        .unweighted = unweighted,
        .out = out_view.buf,
        .out_type = (apsp_dtype)out_type,
        .threads = self->threads,
    };
    solve_call call;
    call_begin(self, &call);
    if (n > 0)
        call.status =
            solve_dense_buffer(self, &copy, directed, &call.report, call.seconds, &call.err);
    call_end(self, &call);
    array_view_release(&out_view);
    array_view_release(&in_view);
    return call_result(self, &call);
}

static PyMethodDef solver_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))solver_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(matrix, pred=None, indptr=None, indices=None, weights=None, tolerance=0.0, "
     "threads=0) -> report: distances in place"},
    {"solve_dense", (PyCFunction)(void (*)(void))solver_solve_dense, METH_VARARGS | METH_KEYWORDS,
     "solve_dense(graph, out, dtype, directed=True, unweighted=False) -> report: SciPy's dense "
     "reading and the distances into out"},
    {"solve_csr", (PyCFunction)(void (*)(void))solver_solve_csr, METH_VARARGS | METH_KEYWORDS,
     "solve_csr(indptr, indices, data, out, dtype, directed=True, unweighted=False, "
     "columns=False) -> report: SciPy's sparse reading and the distances into out"},
    {"solve_batch", (PyCFunction)(void (*)(void))solver_solve_batch, METH_VARARGS | METH_KEYWORDS,
     "solve_batch(cells, vertices, pitch=0, pred=None, source=None, target=None, weight=None, "
     "first=None, undirected=False) -> report: apsp_solver_solve_batch"},
    {"solve_sources", (PyCFunction)(void (*)(void))solver_solve_sources,
     METH_VARARGS | METH_KEYWORDS,
     "solve_sources(source, target, weight, vertices, sources, out, method, pred=None, "
     "dtype=0) -> report: the distances from chosen sources (apsp_solver_solve_sources_typed) "
     "into out, and their predecessors into pred"},
    {"set_progress", (PyCFunction)(void (*)(void))solver_set_progress, METH_O,
     "set_progress(callable or None): called with (done, total) during the calls to come"},
    {"take_log", (PyCFunction)(void (*)(void))solver_take_log, METH_NOARGS,
     "take_log() -> [(apsp_log_level, text), ...]: the library's diagnostics since the last"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot solver_slots[] = {
    {Py_tp_doc, "An apsp_solver: a device opened and its kernels compiled once."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, solver_init},
    {Py_tp_dealloc, solver_dealloc},
    {Py_tp_methods, solver_methods},
    {0, NULL},
};

PyType_Spec solver_spec = {
    .name = "apsp._core.Solver",
    .basicsize = sizeof(SolverObject),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = solver_slots,
};
