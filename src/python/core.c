/* apsp._core: the CPython extension under the Python package apsp (src/python/apsp/).
 *
 * It knows nothing of SciPy's conventions: the package turns a graph into a dense square matrix
 * of the element type it computes in (the unreachable marker of that type off the edges, 0 on
 * the diagonal) and hands it to Solver.solve, which copies it into a padded apsp_matrix, solves
 * with the GIL released and copies the distances back in place. Buffers come through the buffer
 * protocol, so no NumPy header is needed to build this.
 *
 * Ctrl-C: the solver's cancel function takes the GIL between rounds and runs the pending signal
 * handlers; a handler that raised (KeyboardInterrupt) stops the solve, and Solver.solve returns
 * with that exception. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include "apsp.h"

#include <stdlib.h>
#include <string.h>

/* _core.Error(message, status, log): every failure of the library; the package maps the status
 * to the exception a user expects (NegativeCycleError, ValueError, MemoryError, ...). log: a
 * failed kernel build's log, or None. */
static PyObject *core_error;

static PyObject *raise_error_log(const apsp_error *err, const char *log) {
    PyObject *args = Py_BuildValue("(siz)", err->message, (int)err->status,
                                   err->status == APSP_ERR_KERNEL_BUILD ? log : NULL);
    if (args) {
        PyErr_SetObject(core_error, args);
        Py_DECREF(args);
    }
    return NULL;
}

static PyObject *raise_error(const apsp_error *err) {
    return raise_error_log(err, NULL);
}

/* Called by the drivers between rounds, on the thread that released the GIL. */
static int cancel_requested(void *context) {
    (void)context;
    PyGILState_STATE gil = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() != 0; /* the handler's exception stays set for solve() */
    PyGILState_Release(gil);
    return stop;
}

static char *copy_text(const char *text) {
    if (!text)
        return NULL;
    char *copy = PyMem_RawMalloc(strlen(text) + 1);
    if (copy)
        strcpy(copy, text);
    return copy;
}

typedef struct {
    PyObject_HEAD apsp_solver *solver;
    PyThread_type_lock lock; /* one solve at a time: apsp_solver serves one thread */
    char *device;            /* the strings the solver's options point to */
    char *kernel_cache;
    char *build_log; /* the last kernel build log of an error, for the exception */
} SolverObject;

/* The library's diagnostics: a failed kernel build's log is kept for the exception (called on
 * the solving thread, without the GIL: raw allocations only). The rest is dropped. */
static void keep_log(void *context, apsp_log_level level, const char *message) {
    SolverObject *self = context;
    if (level != APSP_LOG_ERROR)
        return;
    PyMem_RawFree(self->build_log);
    self->build_log = copy_text(message);
}

static void solver_dealloc(SolverObject *self) {
    apsp_solver_destroy(self->solver);
    if (self->lock)
        PyThread_free_lock(self->lock);
    PyMem_RawFree(self->device);
    PyMem_RawFree(self->kernel_cache);
    PyMem_RawFree(self->build_log);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Solver(backend=None, device=None, tile=0, threads=0, kernel_cache=None, device_memory=0):
 * opens the device and compiles its kernels, with the GIL released. */
static int solver_init(SolverObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"backend",      "device",        "tile", "threads",
                               "kernel_cache", "device_memory", NULL};
    const char *backend = NULL, *device = NULL, *kernel_cache = NULL;
    int tile = 0, threads = 0;
    unsigned long long device_memory = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zziizK", keywords, &backend, &device, &tile,
                                     &threads, &kernel_cache, &device_memory))
        return -1;
    if (self->solver) {
        PyErr_SetString(PyExc_RuntimeError, "Solver.__init__ called twice");
        return -1;
    }
    apsp_options o;
    apsp_options_init(&o);
    if (backend && apsp_backend_parse(backend, &o.backend) != 0) {
        PyErr_Format(PyExc_ValueError, "backend=%s: expected 'auto', 'cpu' or 'opencl'", backend);
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
    o.device_memory = device_memory;
    o.cancelled = cancel_requested;
    o.log = keep_log;
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

/* The element type of a buffer's struct format ("d", "<f", "=q", ...), or -1. */
static int dtype_of(const Py_buffer *view) {
    const char *f = view->format ? view->format : "B";
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (f[0] == '\0' || f[1] != '\0')
        return -1;
    switch (f[0]) {
    case 'i':
    case 'l':
    case 'q':
        return view->itemsize == 4 ? APSP_INT32 : view->itemsize == 8 ? APSP_INT64 : -1;
    case 'f':
        return APSP_FLOAT32;
    case 'd':
        return APSP_FLOAT64;
    }
    return -1;
}

/* A C-contiguous buffer of `count` items of the element type, writable when asked. */
static int get_vector(PyObject *object, Py_buffer *view, int dtype, Py_ssize_t count, int writable,
                      const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) != 0)
        return -1;
    if (dtype_of(view) != dtype || view->len != count * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous items of %s", name, count,
                     apsp_dtype_name((apsp_dtype)dtype));
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* The predecessor request of one solve: the graph in compressed sparse rows, as
 * apsp_predecessors_csr takes it, and the output rows. */
typedef struct pred_request {
    Py_buffer pred, indptr, indices, weights;
    int have;
    double tolerance;
    unsigned threads;
} pred_request;

static void release_request(pred_request *p) {
    if (!p->have)
        return;
    PyBuffer_Release(&p->pred);
    PyBuffer_Release(&p->indptr);
    PyBuffer_Release(&p->indices);
    PyBuffer_Release(&p->weights);
}

static int get_request(PyObject *pred, PyObject *indptr, PyObject *indices, PyObject *weights,
                       int dtype, Py_ssize_t n, pred_request *p) {
    if (pred == Py_None)
        return 0;
    if (get_vector(pred, &p->pred, APSP_INT32, n * n, 1, "pred") != 0)
        return -1;
    if (get_vector(indptr, &p->indptr, APSP_INT64, n + 1, 0, "indptr") != 0)
        goto no_indptr;
    Py_ssize_t edges = ((const int64_t *)p->indptr.buf)[n];
    if (edges < 0) {
        PyErr_SetString(PyExc_ValueError, "indptr: a negative edge count");
        goto no_indices;
    }
    if (get_vector(indices, &p->indices, APSP_INT32, edges, 0, "indices") != 0)
        goto no_indices;
    if (get_vector(weights, &p->weights, dtype, edges, 0, "weights") != 0)
        goto no_weights;
    p->have = 1;
    return 0;
no_weights:
    PyBuffer_Release(&p->indices);
no_indices:
    PyBuffer_Release(&p->indptr);
no_indptr:
    PyBuffer_Release(&p->pred);
    return -1;
}

#ifdef APSP_PYTHON_PREDECESSORS
static apsp_status derive(const apsp_matrix *m, const pred_request *p, apsp_error *err) {
    return apsp_predecessors_csr(m, p->indptr.buf, p->indices.buf, p->weights.buf, p->tolerance, 0,
                                 m->n, p->threads, p->pred.buf, err);
}
#else
/* apsp_predecessors_csr is declared but not yet in the library this was built with. */
static apsp_status derive(const apsp_matrix *m, const pred_request *p, apsp_error *err) {
    (void)m, (void)p;
    snprintf(err->message, sizeof err->message,
             "predecessors: this build of apsp has no apsp_predecessors_csr yet");
    return err->status = APSP_ERR_INTERNAL;
}
#endif

/* Copies the caller's rows into the padded matrix, solves, derives the predecessors when asked
 * and copies the distances back. Runs without the GIL. */
static apsp_status solve_buffer(apsp_solver *solver, const Py_buffer *view, apsp_dtype dtype,
                                size_t n, const pred_request *p, apsp_report *report,
                                apsp_error *err) {
    apsp_matrix *m = NULL;
    apsp_status status = apsp_matrix_create_typed(n, dtype, &m, err);
    if (status != APSP_OK)
        return status;
    const size_t row_bytes = n * apsp_dtype_size(dtype);
    for (size_t i = 0; i < n; i++)
        memcpy(apsp_matrix_row_cells(m, i), (const char *)view->buf + i * row_bytes, row_bytes);
    status = apsp_solver_solve(solver, m, report, err);
    if (status == APSP_OK && p->have)
        status = derive(m, p, err);
    for (size_t i = 0; status == APSP_OK && i < n; i++)
        memcpy((char *)view->buf + i * row_bytes, apsp_matrix_row_cells(m, i), row_bytes);
    apsp_matrix_destroy(m);
    return status;
}

static PyObject *report_dict(const apsp_report *r) {
    return Py_BuildValue("{s:s,s:s,s:n,s:i,s:i,s:i,s:d,s:d,s:d,s:d,s:i,s:s}", "backend", r->backend,
                         "device", r->device, "padded", (Py_ssize_t)r->padded, "tile", r->tile,
                         "threads", r->threads, "program_builds", r->program_builds,
                         "setup_seconds", r->setup_seconds, "upload_seconds", r->upload_seconds,
                         "compute_seconds", r->compute_seconds, "download_seconds",
                         r->download_seconds, "streamed", r->streamed, "choice", r->choice);
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
    Py_buffer view;
    if (PyObject_GetBuffer(matrix, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0)
        return NULL;
    int dtype = dtype_of(&view);
    if (view.ndim != 2 || view.shape[0] != view.shape[1] || dtype < 0) {
        PyErr_SetString(
            PyExc_ValueError,
            "expected a square C-contiguous matrix of int32, int64, float32 or float64");
        PyBuffer_Release(&view);
        return NULL;
    }
    const Py_ssize_t n = view.shape[0];
    if (get_request(pred, indptr, indices, weights, dtype, n, &p) != 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    apsp_report report;
    memset(&report, 0, sizeof report);
    apsp_error err = {APSP_OK, ""};
    apsp_status status = APSP_OK;
    PyThreadState *thread = PyEval_SaveThread();
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    PyMem_RawFree(self->build_log); /* (this solve's log only) */
    self->build_log = NULL;
    if (n > 0)
        status = solve_buffer(self->solver, &view, (apsp_dtype)dtype, (size_t)n, &p, &report, &err);
    PyThread_release_lock(self->lock);
    PyEval_RestoreThread(thread);
    release_request(&p);
    PyBuffer_Release(&view);
    if (status == APSP_ERR_CANCELLED && PyErr_Occurred())
        return NULL; /* the signal handler's exception, KeyboardInterrupt */
    if (status != APSP_OK)
        return raise_error_log(&err, self->build_log);
    return report_dict(&report);
}

static PyMethodDef solver_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))solver_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(matrix, pred=None, indptr=None, indices=None, weights=None, tolerance=0.0, "
     "threads=0) -> report: distances in place"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject solver_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "apsp._core.Solver",
    .tp_basicsize = sizeof(SolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An apsp_solver: a device opened and its kernels compiled once.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)solver_init,
    .tp_dealloc = (destructor)solver_dealloc,
    .tp_methods = solver_methods,
};

/* devices() -> list of dicts, apsp_list_devices' entries. */
static PyObject *core_devices(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    apsp_device_info *list = NULL;
    size_t count = 0;
    apsp_error err;
    apsp_status status;
    PyThreadState *thread = PyEval_SaveThread();
    status = apsp_list_devices(&list, &count, &err);
    PyEval_RestoreThread(thread);
    if (status != APSP_OK)
        return raise_error(&err);
    PyObject *result = PyList_New(0);
    for (size_t i = 0; result && i < count; i++) {
        const apsp_device_info *d = &list[i];
        PyObject *entry =
            Py_BuildValue("{s:i,s:s,s:s,s:s,s:s,s:I,s:K,s:K,s:K,s:n,s:s}", "index", d->index,
                          "backend", apsp_backend_name(d->backend), "platform", d->platform, "name",
                          d->name, "type", d->type, "compute_units", d->compute_units,
                          "global_memory", (unsigned long long)d->global_memory, "max_allocation",
                          (unsigned long long)d->max_allocation, "local_memory",
                          (unsigned long long)d->local_memory, "max_work_group",
                          (Py_ssize_t)d->max_work_group, "driver", d->driver);
        if (!entry || PyList_Append(result, entry) != 0)
            Py_CLEAR(result);
        Py_XDECREF(entry);
    }
    free(list);
    return result;
}

static PyMethodDef core_methods[] = {
    {"devices", core_devices, METH_NOARGS, "devices() -> list of dicts (apsp_list_devices)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    "apsp._core",
    "The apsp library, for the package apsp.",
    -1,
    core_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&solver_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    core_error = PyErr_NewException("apsp._core.Error", NULL, NULL);
    if (!core_error || PyModule_AddObjectRef(m, "Error", core_error) < 0 ||
        PyModule_AddObjectRef(m, "Solver", (PyObject *)&solver_type) < 0 ||
        PyModule_AddIntConstant(m, "INF32", APSP_INF) < 0 ||
        PyModule_AddObject(m, "INF64", PyLong_FromLongLong(APSP_INF64)) < 0 ||
        PyModule_AddIntConstant(m, "NO_PREDECESSOR", APSP_NO_PREDECESSOR) < 0 ||
        PyModule_AddIntConstant(m, "NEGATIVE_CYCLE", APSP_ERR_NEGATIVE_CYCLE) < 0 ||
        PyModule_AddIntConstant(m, "USAGE", APSP_ERR_USAGE) < 0 ||
        PyModule_AddIntConstant(m, "TOO_LARGE", APSP_ERR_TOO_LARGE) < 0 ||
        PyModule_AddIntConstant(m, "NO_MEMORY", APSP_ERR_NO_MEMORY) < 0 ||
        PyModule_AddIntConstant(m, "NO_DEVICE", APSP_ERR_NO_DEVICE) < 0 ||
        PyModule_AddStringConstant(m, "version", apsp_version()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
