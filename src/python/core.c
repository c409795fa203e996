/* apsp._core: the CPython extension under the Python package apsp (src/python/apsp/).
 *
 * It knows nothing of SciPy's conventions: the package turns a graph into a dense square matrix
 * of the element type it computes in (the unreachable marker of that type off the edges, 0 on
 * the diagonal) and hands it to Solver.solve, which copies it into a padded apsp_matrix, solves
 * with the GIL released and copies the distances back in place. Buffers come through the buffer
 * protocol, so no NumPy header is needed to build this.
 *
 * The padded matrix is the solver's (apsp_solver_matrix_create: pinned memory on a GPU, which
 * the upload and download move at the bus's speed) and is kept for the next call of the same
 * size and type: its padding stays as made by a successful solve, so a call writes only the
 * n x n cells. A failed solve, a call of another size or type and the Solver's end release it.
 *
 * Ctrl-C: the solver's cancel function takes the GIL between rounds and runs the pending signal
 * handlers; a handler that raised (KeyboardInterrupt) stops the solve, and Solver.solve returns
 * with that exception. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include "apsp.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    char *build_log;     /* the last kernel build log of an error, for the exception */
    apsp_matrix *matrix; /* the padded matrix of the last successful solve (or NULL) */
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
    apsp_matrix_destroy(self->matrix);
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

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Items [begin, end) of a host copy. */
typedef void (*slice_fn)(void *context, size_t begin, size_t end);

enum { MAX_SLICES = 16 };

typedef struct slice {
    slice_fn work;
    void *context;
    size_t begin, end;
} slice;

static void *run_slice(void *arg) {
    const slice *s = arg;
    s->work(s->context, s->begin, s->end);
    return NULL;
}

/* Runs work over [0, count) in contiguous slices, one per online core (at most 16), the calling
 * thread taking one. (The library's own parallel_slices is hidden in its archive: it exports only
 * the API.) A slice whose thread the system refuses runs on the calling thread. */
static void parallel_slices(size_t count, slice_fn work, void *context) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cores < 1 ? 1 : cores > MAX_SLICES ? MAX_SLICES : (size_t)cores;
    if (threads > count)
        threads = count > 0 ? count : 1;
    slice slices[MAX_SLICES];
    pthread_t ids[MAX_SLICES];
    int started[MAX_SLICES] = {0};
    for (size_t t = 0; t < threads; t++) {
        slices[t] = (slice){work, context, count * t / threads, count * (t + 1) / threads};
        started[t] = t > 0 && pthread_create(&ids[t], NULL, run_slice, &slices[t]) == 0;
    }
    for (size_t t = 0; t < threads; t++)
        if (!started[t])
            run_slice(&slices[t]);
    for (size_t t = 0; t < threads; t++)
        if (started[t])
            pthread_join(ids[t], NULL);
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
static apsp_status solve_buffer(SolverObject *self, const Py_buffer *view, apsp_dtype dtype,
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
        status = derive(m, p, err);
    start = seconds_now();
    for (size_t i = 0; status == APSP_OK && i < n; i++)
        memcpy((char *)view->buf + i * row_bytes, apsp_matrix_row_cells(m, i), row_bytes);
    settle_matrix(self, status);
    seconds[1] = seconds_now() - start;
    return status;
}

/* The dense fast path (Solver.solve_dense): SciPy's reading of a dense matrix done in the copy
 * into the padded matrix, on several threads, so that no pass over the V^2 cells is left to
 * single-threaded NumPy. `src` is the caller's array as it lies (any strides, any of the four
 * types); the kernel type is the source's, or for integers the other integer width when the
 * package's exactness rule (compute_type) picked it. */
typedef struct dense_copy {
    const char *src;
    Py_ssize_t row_step, col_step; /* bytes */
    apsp_dtype from;
    apsp_matrix *m;
    int unweighted;
    void *out; /* C-contiguous n x n of the kernel type, or float64 for an integer kernel */
    apsp_dtype out_type;
} dense_copy;

/* One source row into one matrix row: 0 is no edge, and for floats so are NaN and +-inf (SciPy's
 * nan_null and infinity_null); the diagonal is 0 whatever the self-loop weighs, as SciPy's. */
#define DENSE_ROW_IN(NAME, S, K, NO_EDGE, MARKER)                                                  \
    static void NAME(const dense_copy *c, size_t i) {                                              \
        const char *row = c->src + (Py_ssize_t)i * c->row_step;                                    \
        K *cells = apsp_matrix_row_cells(c->m, i);                                                 \
        const size_t n = c->m->n;                                                                  \
        for (size_t j = 0; j < n; j++) {                                                           \
            const S v = *(const S *)(row + (Py_ssize_t)j * c->col_step);                           \
            cells[j] = (NO_EDGE) ? (MARKER) : c->unweighted ? (K)1 : (K)v;                         \
        }                                                                                          \
        cells[i] = 0;                                                                              \
    }
DENSE_ROW_IN(row_f32, float, float, v == 0 || !isfinite(v), INFINITY)
DENSE_ROW_IN(row_f64, double, double, v == 0 || !isfinite(v), INFINITY)
DENSE_ROW_IN(row_i32_i32, int32_t, int32_t, v == 0, APSP_INF)
DENSE_ROW_IN(row_i64_i32, int64_t, int32_t, v == 0, APSP_INF)
DENSE_ROW_IN(row_i32_i64, int32_t, int64_t, v == 0, APSP_INF64)
DENSE_ROW_IN(row_i64_i64, int64_t, int64_t, v == 0, APSP_INF64)
#undef DENSE_ROW_IN

static void dense_in(void *context, size_t begin, size_t end) {
    const dense_copy *c = context;
    for (size_t i = begin; i < end; i++) {
        switch (c->m->dtype * 4 + c->from) {
        case APSP_FLOAT32 * 4 + APSP_FLOAT32:
            row_f32(c, i);
            break;
        case APSP_FLOAT64 * 4 + APSP_FLOAT64:
            row_f64(c, i);
            break;
        case APSP_INT32 * 4 + APSP_INT32:
            row_i32_i32(c, i);
            break;
        case APSP_INT32 * 4 + APSP_INT64:
            row_i64_i32(c, i);
            break;
        case APSP_INT64 * 4 + APSP_INT32:
            row_i32_i64(c, i);
            break;
        case APSP_INT64 * 4 + APSP_INT64:
            row_i64_i64(c, i);
            break;
        }
    }
}

enum { SYMMETRIC_BLOCK = 64 };

/* directed=False: both ways weigh the lesser of w(i,j) and w(j,i). Item k is block row k with
 * block row nb-1-k, so that the slices of the triangle weigh about the same; 64 x 64 blocks keep
 * the transposed reads in cache. */
#define SYMMETRIC_BLOCKS(NAME, K)                                                                  \
    static void NAME(const apsp_matrix *m, size_t bi) {                                            \
        const size_t n = m->n, i0 = bi * SYMMETRIC_BLOCK;                                          \
        const size_t i1 = i0 + SYMMETRIC_BLOCK < n ? i0 + SYMMETRIC_BLOCK : n;                     \
        for (size_t j0 = 0; j0 <= i0; j0 += SYMMETRIC_BLOCK)                                       \
            for (size_t i = i0; i < i1; i++) {                                                     \
                K *row = apsp_matrix_row_cells(m, i);                                              \
                const size_t j1 = j0 + SYMMETRIC_BLOCK < i ? j0 + SYMMETRIC_BLOCK : i;             \
                for (size_t j = j0; j < j1; j++) {                                                 \
                    K *mirror = (K *)apsp_matrix_row_cells(m, j) + i;                              \
                    const K least = *mirror < row[j] ? *mirror : row[j];                           \
                    row[j] = *mirror = least;                                                      \
                }                                                                                  \
            }                                                                                      \
    }
SYMMETRIC_BLOCKS(symmetric_i32, int32_t)
SYMMETRIC_BLOCKS(symmetric_i64, int64_t)
SYMMETRIC_BLOCKS(symmetric_f32, float)
SYMMETRIC_BLOCKS(symmetric_f64, double)
#undef SYMMETRIC_BLOCKS

static void symmetric_block_row(const apsp_matrix *m, size_t bi) {
    switch (m->dtype) {
    case APSP_INT32:
        symmetric_i32(m, bi);
        break;
    case APSP_INT64:
        symmetric_i64(m, bi);
        break;
    case APSP_FLOAT32:
        symmetric_f32(m, bi);
        break;
    case APSP_FLOAT64:
        symmetric_f64(m, bi);
        break;
    }
}

static void dense_symmetric(void *context, size_t begin, size_t end) {
    const apsp_matrix *m = context;
    const size_t blocks = (m->n + SYMMETRIC_BLOCK - 1) / SYMMETRIC_BLOCK;
    for (size_t k = begin; k < end; k++) {
        symmetric_block_row(m, k);
        if (blocks - 1 - k != k)
            symmetric_block_row(m, blocks - 1 - k);
    }
}

/* The distances out: a copy of each row, or for an integer kernel float64 with inf for the
 * marker, as SciPy returns integer input. */
#define DENSE_ROW_OUT(NAME, K, MARKER)                                                             \
    static void NAME(const dense_copy *c, size_t i) {                                              \
        const K *cells = apsp_matrix_row_cells(c->m, i);                                           \
        const size_t n = c->m->n;                                                                  \
        double *row = (double *)c->out + i * n;                                                    \
        for (size_t j = 0; j < n; j++)                                                             \
            row[j] = cells[j] == (MARKER) ? INFINITY : (double)cells[j];                           \
    }
DENSE_ROW_OUT(out_i32, int32_t, APSP_INF)
DENSE_ROW_OUT(out_i64, int64_t, APSP_INF64)
#undef DENSE_ROW_OUT

static void dense_out(void *context, size_t begin, size_t end) {
    const dense_copy *c = context;
    const size_t n = c->m->n, row_bytes = n * apsp_dtype_size(c->m->dtype);
    for (size_t i = begin; i < end; i++) {
        if (c->out_type == c->m->dtype)
            memcpy((char *)c->out + i * row_bytes, apsp_matrix_row_cells(c->m, i), row_bytes);
        else if (c->m->dtype == APSP_INT32)
            out_i32(c, i);
        else
            out_i64(c, i);
    }
}

/* Fills the padded matrix's n x n cells from the caller's array, solves and writes the distances
 * out, with the copies on every core (the pthread backend's solve uses them too; a GPU's leaves
 * them idle). Runs without the GIL, under self->lock. */
static apsp_status solve_dense_buffer(SolverObject *self, dense_copy *c, apsp_dtype kernel,
                                      size_t n, int directed, apsp_report *report,
                                      double seconds[2], apsp_error *err) {
    double start = seconds_now();
    apsp_status status = take_matrix(self, n, kernel, err);
    if (status != APSP_OK)
        return status;
    c->m = self->matrix;
    parallel_slices(n, dense_in, c);
    if (!directed)
        parallel_slices((n + SYMMETRIC_BLOCK - 1) / SYMMETRIC_BLOCK / 2 +
                            (n + SYMMETRIC_BLOCK - 1) / SYMMETRIC_BLOCK % 2,
                        dense_symmetric, c->m);
    seconds[0] = seconds_now() - start;
    status = apsp_solver_solve(self->solver, c->m, report, err);
    start = seconds_now();
    if (status == APSP_OK)
        parallel_slices(n, dense_out, c);
    settle_matrix(self, status);
    c->m = NULL;
    seconds[1] = seconds_now() - start;
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
    double seconds[2] = {0, 0};
    apsp_error err = {APSP_OK, ""};
    apsp_status status = APSP_OK;
    PyThreadState *thread = PyEval_SaveThread();
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    PyMem_RawFree(self->build_log); /* (this solve's log only) */
    self->build_log = NULL;
    if (n > 0)
        status =
            solve_buffer(self, &view, (apsp_dtype)dtype, (size_t)n, &p, &report, seconds, &err);
    PyThread_release_lock(self->lock);
    PyEval_RestoreThread(thread);
    release_request(&p);
    PyBuffer_Release(&view);
    if (status == APSP_ERR_CANCELLED && PyErr_Occurred())
        return NULL; /* the signal handler's exception, KeyboardInterrupt */
    if (status != APSP_OK)
        return raise_error_log(&err, self->build_log);
    return report_with_copies(&report, seconds);
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
    Py_buffer in_view, out_view;
    if (PyObject_GetBuffer(graph, &in_view, PyBUF_STRIDES | PyBUF_FORMAT) != 0)
        return NULL;
    const int from = dtype_of(&in_view);
    const int integer = kernel == APSP_INT32 || kernel == APSP_INT64;
    if (in_view.ndim != 2 || in_view.shape[0] != in_view.shape[1] || from < 0 ||
        (from != (int)kernel && !(integer && (from == APSP_INT32 || from == APSP_INT64)))) {
        PyErr_Format(PyExc_ValueError, "graph: expected a square matrix of %s%s",
                     apsp_dtype_name(kernel), integer ? " or the other integer width" : "");
        PyBuffer_Release(&in_view);
        return NULL;
    }
    const Py_ssize_t n = in_view.shape[0];
    if (PyObject_GetBuffer(out, &out_view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) !=
        0) {
        PyBuffer_Release(&in_view);
        return NULL;
    }
    const int out_type = dtype_of(&out_view);
    if ((out_type != (int)kernel && !(integer && out_type == APSP_FLOAT64)) ||
        out_view.len != n * n * out_view.itemsize) {
        PyErr_Format(PyExc_ValueError, "out: expected %zd x %zd contiguous items of %s%s", n, n,
                     apsp_dtype_name(kernel), integer ? " or float64" : "");
        PyBuffer_Release(&out_view);
        PyBuffer_Release(&in_view);
        return NULL;
    }
    dense_copy copy = {
        .src = in_view.buf,
        .row_step = in_view.strides[0],
        .col_step = in_view.strides[1],
        .from = (apsp_dtype)from,
        .unweighted = unweighted,
        .out = out_view.buf,
        .out_type = (apsp_dtype)out_type,
    };
    apsp_report report;
    memset(&report, 0, sizeof report);
    double seconds[2] = {0, 0};
    apsp_error err = {APSP_OK, ""};
    apsp_status status = APSP_OK;
    PyThreadState *thread = PyEval_SaveThread();
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    PyMem_RawFree(self->build_log);
    self->build_log = NULL;
    if (n > 0)
        status =
            solve_dense_buffer(self, &copy, kernel, (size_t)n, directed, &report, seconds, &err);
    PyThread_release_lock(self->lock);
    PyEval_RestoreThread(thread);
    PyBuffer_Release(&out_view);
    PyBuffer_Release(&in_view);
    if (status == APSP_ERR_CANCELLED && PyErr_Occurred())
        return NULL;
    if (status != APSP_OK)
        return raise_error_log(&err, self->build_log);
    return report_with_copies(&report, seconds);
}

static PyMethodDef solver_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))solver_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(matrix, pred=None, indptr=None, indices=None, weights=None, tolerance=0.0, "
     "threads=0) -> report: distances in place"},
    {"solve_dense", (PyCFunction)(void (*)(void))solver_solve_dense, METH_VARARGS | METH_KEYWORDS,
     "solve_dense(graph, out, dtype, directed=True, unweighted=False) -> report: SciPy's dense "
     "reading and the distances into out"},
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
