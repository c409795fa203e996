/* The parts of apsp._core (src/python/) that its files share:
 *   core.c        the module (Error, devices(), the constants), the buffers a call passes in
 *                 and the predecessor request
 *   solver.c      the Solver object: its options, its padded matrix, the calls' GIL and lock,
 *                 solve and solve_dense
 *   callbacks.c   the Solver's cancel, progress and log functions for the library
 *   solve_sources.c  Solver.solve_sources (apsp_solver_solve_sources' rows into an S x V array)
 *   dense_copy.c  solve_dense's copies into and out of the padded matrix, on its threads
 *   solve_csr.c   Solver.solve_csr (a compressed sparse graph's arrays taken and checked)
 *   csr_copy.c    solve_csr's copy of a compressed sparse graph into the padded matrix
 *   array_view.c  the arrays a call passes in, read from NumPy's __array_interface__
 *   solve_batch.c Solver.solve_batch (many graphs, by cells or by edges)
 * Private to the extension: nothing here is part of the library or the package. */
#ifndef APSP_PYTHON_CORE_H
#define APSP_PYTHON_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include "apsp.h"

/* Sets _core.Error(message, status, log) from err (log: a failed kernel build's log, kept only
 * for APSP_ERR_KERNEL_BUILD) and returns NULL. */
PyObject *raise_error_log(const apsp_error *err, const char *log);

/* One of the library's lists, {name: value} from its name function (value 0 up to the first it
 * calls "unknown"): _core.BACKENDS, METHODS and DTYPES, so that the package keeps no copy of the
 * C enums' numbers. A new reference, or NULL with a Python exception set. */
typedef enum library_list { LIST_BACKENDS, LIST_METHODS, LIST_DTYPES } library_list;
PyObject *library_names(library_list list);

/* An array a call passes in (array_view.c). Not the buffer protocol: that joined the limited
 * API in Python 3.11, and the wheel's one abi3 build is for 3.9 and later (Py_LIMITED_API
 * 0x03090000, src/python/meson.build); NumPy's __array_interface__ gives the same facts. */
typedef struct array_view {
    PyObject *obj; /* the array, held until array_view_release */
    void *buf;
    Py_ssize_t len, itemsize; /* bytes */
    int ndim;
    Py_ssize_t shape[2], strides[2]; /* the first two dimensions; strides in bytes */
    char format[8];                  /* the typestr: "<f8", "<i4", ... ("" if longer) */
} array_view;

enum { ARRAY_WRITABLE = 1, ARRAY_C_CONTIGUOUS = 2 };

/* The view of `object` (any layout unless flags ask for ARRAY_C_CONTIGUOUS or ARRAY_WRITABLE).
 * Returns 0, or -1 with a Python exception set (TypeError for an object that is no array,
 * ValueError for a layout or a read-only array that flags refuse) and nothing held. */
int array_view_get(PyObject *object, array_view *view, int flags);
void array_view_release(array_view *view);

/* The element type of a view's typestr ("<f8", "<i4", ...), or -1. */
int dtype_of(const array_view *view);

/* A C-contiguous buffer of `count` items of the element type, writable when asked. Returns 0,
 * or -1 with a Python exception set (ValueError naming `name`) and nothing held. */
int get_vector(PyObject *object, array_view *view, int dtype, Py_ssize_t count, int writable,
               const char *name);

/* The predecessor request of one solve: the graph in compressed sparse rows, as
 * apsp_predecessors_csr takes it, and the output rows. */
typedef struct pred_request {
    array_view pred, indptr, indices, weights;
    int have;
    double tolerance;
    unsigned threads;
} pred_request;

/* Takes the request's buffers (none when pred is None), checked against the matrix's type and
 * size n. Returns 0, or -1 with a Python exception set and nothing held. */
int pred_request_get(PyObject *pred, PyObject *indptr, PyObject *indices, PyObject *weights,
                     int dtype, Py_ssize_t n, pred_request *p);
void pred_request_release(pred_request *p);
/* The predecessors of the solved matrix m into p->pred, as SciPy's Floyd-Warshall gives them
 * where shortest paths tie (fw_predecessors.c). Without the GIL. */
apsp_status fw_predecessors(const apsp_matrix *m, const pred_request *p, apsp_error *err);

/* apsp._core.Solver (solver.c): a heap type, as the limited API (the wheel's abi3 build) has no
 * static PyTypeObject. */
extern PyType_Spec solver_spec;

/* One of the library's diagnostics, kept for the package's logging (callbacks.c). */
typedef struct log_line {
    apsp_log_level level;
    char *text;
} log_line;

/* A Solver's state (solver.c), which its methods in other files share. */
typedef struct {
    PyObject_HEAD apsp_solver *solver;
    PyThread_type_lock lock; /* one solve at a time: apsp_solver serves one thread */
    char *device;            /* the strings the solver's options point to */
    char *kernel_cache;
    char *build_log;     /* the last kernel build log of an error, for the exception */
    unsigned threads;    /* threads= (0: one per core), for the dense copies too */
    apsp_matrix *matrix; /* the padded matrix of the last successful solve (or NULL) */
    PyObject *progress;  /* the calls' progress callable (set_progress), or NULL */
    int progress_failed; /* it raised during this call: the solve stops */
    log_line *log;       /* the library's diagnostics not yet taken (take_log) */
    size_t log_count, log_capacity;
} SolverObject;

/* The library's callbacks for a Solver (callbacks.c), their context the SolverObject, and its
 * methods set_progress and take_log. */
char *copy_text(const char *text); /* a malloc'd copy (NULL for NULL or no memory) */
int solver_cancel_requested(void *context);
void solver_progress(void *context, size_t done, size_t total);
void solver_keep_log(void *context, apsp_log_level level, const char *message);
void solver_free_log(SolverObject *self);
PyObject *solver_set_progress(SolverObject *self, PyObject *progress);
PyObject *solver_take_log(SolverObject *self, PyObject *unused);

/* One solve from Python: the GIL released and the Solver's lock held around it (call_begin,
 * call_end), then its report or its error (call_result). */
typedef struct solve_call {
    apsp_report report;
    double seconds[2]; /* the copies in and out */
    apsp_error err;
    apsp_status status;
    PyThreadState *thread;
} solve_call;

/* Releases the GIL and takes the Solver's lock (clearing the last build log). */
void call_begin(SolverObject *self, solve_call *call);
/* Releases the lock and takes the GIL back. */
void call_end(SolverObject *self, solve_call *call);
/* The call's report as a dict with the copies' seconds, or NULL with its exception set. */
PyObject *call_result(SolverObject *self, const solve_call *call);

/* solve_sources(source, target, weight, vertices, sources, out, method, pred=None,
 * dtype=APSP_INT32): the distances from each of `sources` (int32) over the graph of edges
 * source[e] -> target[e] (int32) of weight weight[e] (int64; float64 for dtype APSP_FLOAT64),
 * into `out`, a C-contiguous len(sources) x vertices array of the apsp_dtype numbered `dtype`
 * (int32, int64 or float64; APSP_INF, APSP_INF64 or inf for no path), by the apsp_method
 * numbered `method`; with `pred` (the same shape, int32) the predecessors too
 * (APSP_NO_PREDECESSOR for none). Returns the report. */
PyObject *solver_solve_sources(SolverObject *self, PyObject *args, PyObject *kwargs);

/* The dense fast path (Solver.solve_dense): SciPy's reading of a dense matrix done in the copy
 * into the padded matrix, on several threads, so that no pass over the V^2 cells is left to
 * single-threaded NumPy. `src` is the caller's array as it lies (any strides, any of the four
 * types); the kernel type is the source's, or for integers the other integer width when the
 * package's exactness rule (compute_type) picked it. */
typedef struct dense_copy {
    const char *src;
    Py_ssize_t row_step, col_step; /* bytes */
    apsp_dtype from;
    size_t n;
    apsp_dtype kernel;
    apsp_matrix *m; /* the padded matrix of dense_copy_in and dense_copy_matrix_rows */
    int unweighted;
    void *out; /* C-contiguous n x n of the kernel type, or float64 for an integer kernel */
    apsp_dtype out_type;
    unsigned threads; /* the Solver's threads (0: one per core) */
} dense_copy;

/* The source into c->m's n x n cells (directed 0: both ways the lesser weight), on c->threads.
 * Without the GIL. */
void dense_copy_in(dense_copy *c, int directed);
/* The same two copies as apsp_solver_solve_rows' row functions: no padded matrix of the
 * extension's, each row read from the source and written into c->out by the library's threads.
 * The source may be c->out itself (every row is read before the first is written). */
apsp_row_io dense_copy_rows(dense_copy *c);
/* apsp_solver_solve_rows' row functions from c->m's n x n cells, read as they are (made by
 * dense_copy_in or csr_copy_in), to c->out as dense_copy_rows writes it: the library solves in
 * its own padded matrix, whose padding it made, so it checks the graph's cells alone. */
apsp_row_io dense_copy_matrix_rows(dense_copy *c);
/* The least and the largest cell (0 counted) of an integer source (c->from int32 or int64), on
 * c->threads. Returns 0, or -1 when no lock could be made. Without the GIL. */
int dense_extremes(const dense_copy *c, int64_t *least, int64_t *most);

/* A compressed sparse graph as SciPy's csgraph reads it (Solver.solve_csr): rows (columns for
 * CSC) by indptr (n + 1 entries), their entries' columns in indices and weights in data (of
 * `from`: the kernel type, or for an integer kernel either integer width). */
typedef struct csr_copy {
    const void *indptr, *indices, *data;
    apsp_dtype indptr_type, indices_type, from; /* indexes: int32 or int64 */
    size_t n;
    uint64_t entries; /* of indices and data */
    int columns;      /* CSC: indptr runs over columns */
    int directed, unweighted;
} csr_copy;

/* The graph into m's n x n cells (of the kernel type): the unreachable marker off the edges, 0
 * on the diagonal. Returns 0, or -1 for an index out of range (m's cells then undefined).
 * Without the GIL. */
int csr_copy_in(const csr_copy *g, apsp_matrix *m);

/* solve_csr(indptr, indices, data, out, dtype, directed=True, unweighted=False, columns=False)
 * (solve_csr.c), and what it runs without the GIL, under the Solver's lock (solver.c): the
 * compressed graph into the padded matrix, solved by rows into c->out. */
PyObject *solver_solve_csr(SolverObject *self, PyObject *args, PyObject *kwargs);
apsp_status solve_csr_buffer(SolverObject *self, const csr_copy *g, dense_copy *c,
                             apsp_report *report, double seconds[2], apsp_error *err);

/* solve_batch(cells, vertices, pitch=0, pred=None, source=None, target=None, weight=None,
 * first=None, undirected=False) (solve_batch.c): apsp_solver_solve_batch over the caller's
 * arrays, the graphs given by their cells or made from the edges. Returns the report. */
PyObject *solver_solve_batch(SolverObject *self, PyObject *args, PyObject *kwargs);

#endif
