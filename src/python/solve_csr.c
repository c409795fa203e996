/* apsp._core.Solver.solve_csr (core.h): a compressed sparse graph's arrays checked and taken as
 * buffers, copied into the Solver's padded matrix (csr_copy.c) and solved by rows into the
 * caller's array, as the Solver's other solves run (solver.c: call_begin, call_end,
 * call_result, solve_csr_buffer). */
#include "core.h"

/* An int32 or int64 index array of at least `count` entries, C-contiguous; 0, or -1 with
 * ValueError naming it. */
static int get_indexes(PyObject *object, array_view *view, Py_ssize_t count, const char *name) {
    if (array_view_get(object, view, ARRAY_C_CONTIGUOUS) != 0)
        return -1;
    const int type = dtype_of(view);
    if (view->ndim != 1 || (type != APSP_INT32 && type != APSP_INT64) ||
        view->len < count * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected at least %zd contiguous int32 or int64", name,
                     count);
        array_view_release(view);
        return -1;
    }
    return 0;
}

/* solve_csr(indptr, indices, data, out, dtype, directed=True, unweighted=False, columns=False):
 * the distances of a compressed sparse graph in SciPy's sparse meaning (every entry an edge,
 * zeros included; NaN and +-inf none; repeated entries the least; self-loops ignored), of
 * len(indptr) - 1 vertices, its rows (columns=True: columns) by indptr, written into `out` as
 * solve_dense writes it; data of `dtype` (the kernel type) or, for an integer kernel, the other
 * integer width. Returns the report. */
PyObject *solver_solve_csr(SolverObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"indptr",   "indices",    "data",    "out", "dtype",
                               "directed", "unweighted", "columns", NULL};
    PyObject *indptr, *indices, *data, *out;
    const char *kernel_name;
    int directed = 1, unweighted = 0, columns = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOs|ppp", keywords, &indptr, &indices, &data,
                                     &out, &kernel_name, &directed, &unweighted, &columns))
        return NULL;
    apsp_dtype kernel;
    if (!self->solver || apsp_dtype_parse(kernel_name, &kernel) != 0) {
        PyErr_Format(PyExc_ValueError,
                     "dtype=%s: expected int32, int64, float32 or float64 (and "
                     "an initialized Solver)",
                     kernel_name);
        return NULL;
    }
    const int integer = kernel == APSP_INT32 || kernel == APSP_INT64;
    array_view out_view, ptr_view, index_view, data_view;
    if (array_view_get(out, &out_view, ARRAY_WRITABLE | ARRAY_C_CONTIGUOUS) != 0)
        return NULL;
    const int out_type = dtype_of(&out_view);
    const Py_ssize_t n = out_view.ndim == 2 ? out_view.shape[0] : -1;
    if (n < 1 || out_view.shape[1] != n ||
        (out_type != (int)kernel && !(integer && out_type == APSP_FLOAT64))) {
        PyErr_Format(PyExc_ValueError, "out: expected a square C-contiguous array of %s%s",
                     apsp_dtype_name(kernel), integer ? " or float64" : "");
        array_view_release(&out_view);
        return NULL;
    }
    if (get_indexes(indptr, &ptr_view, n + 1, "indptr") != 0)
        goto no_indptr;
    if (get_indexes(indices, &index_view, 0, "indices") != 0)
        goto no_indices;
    if (array_view_get(data, &data_view, ARRAY_C_CONTIGUOUS) != 0)
        goto no_data;
    const int from = dtype_of(&data_view);
    const Py_ssize_t entries = index_view.len / index_view.itemsize;
    if (data_view.ndim != 1 || data_view.len / data_view.itemsize < entries || from < 0 ||
        (from != (int)kernel && !(integer && (from == APSP_INT32 || from == APSP_INT64)))) {
        PyErr_Format(PyExc_ValueError, "data: expected %zd contiguous items of %s%s", entries,
                     apsp_dtype_name(kernel), integer ? " or the other integer width" : "");
        array_view_release(&data_view);
        goto no_data;
    }
    const csr_copy graph = {
        .indptr = ptr_view.buf,
        .indices = index_view.buf,
        .data = data_view.buf,
        .indptr_type = (apsp_dtype)dtype_of(&ptr_view),
        .indices_type = (apsp_dtype)dtype_of(&index_view),
        .from = (apsp_dtype)from,
        .n = (size_t)n,
        .entries = (uint64_t)entries,
        .columns = columns,
        .directed = directed,
        .unweighted = unweighted,
    };
    dense_copy copy = {
        .from = kernel,
        .n = (size_t)n,
        .kernel = kernel,
        .out = out_view.buf,
        .out_type = (apsp_dtype)out_type,
        .threads = self->threads,
    };
    solve_call call;
    call_begin(self, &call);
    call.status = solve_csr_buffer(self, &graph, &copy, &call.report, call.seconds, &call.err);
    call_end(self, &call);
    array_view_release(&data_view);
    array_view_release(&index_view);
    array_view_release(&ptr_view);
    array_view_release(&out_view);
    return call_result(self, &call);
no_data:
    array_view_release(&index_view);
no_indices:
    array_view_release(&ptr_view);
no_indptr:
    array_view_release(&out_view);
    return NULL;
}
