/* apsp._core.Solver.solve_sources (core.h): the distances from chosen sources over an edge list
 * of three vectors, by apsp_solver_solve_sources_typed, its rows copied into the caller's S x V
 * arrays. Runs as the Solver's other solves do (solver.c: call_begin, call_end, call_result). */
#include "core.h"

#include <string.h>

/* The rows of apsp_solver_solve_sources_typed into the caller's C-contiguous S x V array of
 * cell_bytes cells. */
typedef struct rows_out {
    char *cells;
    size_t vertices, cell_bytes;
} rows_out;

static apsp_status copy_rows(void *context, size_t first_row, size_t count, const void *rows,
                             size_t pitch, apsp_error *error) {
    (void)error;
    rows_out *o = context;
    size_t row_bytes = o->vertices * o->cell_bytes;
    for (size_t r = 0; r < count; r++)
        memcpy(o->cells + (first_row + r) * row_bytes,
               (const char *)rows + r * pitch * o->cell_bytes, row_bytes);
    return APSP_OK;
}

static apsp_status copy_int32_rows(void *context, size_t first_row, size_t count,
                                   const int32_t *rows, size_t pitch, apsp_error *error) {
    return copy_rows(context, first_row, count, rows, pitch, error);
}

/* The edge list of the three vectors (endpoints int32, weights int64, or float64 where `real`). */
static apsp_status edge_list(const array_view *from, const array_view *to, const array_view *weight,
                             int real, size_t vertices, apsp_graph **out, apsp_error *err) {
    size_t edges = (size_t)from->shape[0];
    apsp_status status = apsp_graph_create(vertices, edges, out, err);
    if (status != APSP_OK || edges == 0)
        return status;
    const int32_t *a = from->buf, *b = to->buf;
    if (real) { /* (the graph's weights become real at the first) */
        const double *w = weight->buf;
        for (size_t e = 0; e < edges && status == APSP_OK; e++)
            status = apsp_graph_append_real(*out, a[e], b[e], w[e], err);
        return status;
    }
    memcpy((*out)->source, a, edges * sizeof(int32_t));
    memcpy((*out)->target, b, edges * sizeof(int32_t));
    memcpy((*out)->weight, weight->buf, edges * sizeof(int64_t));
    (*out)->edges = edges;
    return APSP_OK;
}

/* The buffers of solve_sources' arguments, taken in order; `held` of them to release. */
typedef struct sources_views {
    array_view from, to, weight, sources, out, pred;
    int held, have_pred;
} sources_views;

static int get_sources_views(PyObject *const *objects, Py_ssize_t edges, Py_ssize_t count,
                             Py_ssize_t vertices, int dtype, sources_views *v) {
    v->held = 0;
    array_view *views[] = {&v->from, &v->to, &v->weight, &v->sources, &v->out, &v->pred};
    int weights = dtype == APSP_FLOAT64 ? APSP_FLOAT64 : APSP_INT64;
    const int dtypes[] = {APSP_INT32, APSP_INT32, weights, APSP_INT32, dtype, APSP_INT32};
    const Py_ssize_t counts[] = {edges, edges, edges, count, count * vertices, count * vertices};
    const char *names[] = {"source", "target", "weight", "sources", "out", "pred"};
    int wanted = objects[5] == Py_None ? 5 : 6;
    v->have_pred = wanted == 6;
    for (int i = 0; i < wanted; i++) {
        if (get_vector(objects[i], views[i], dtypes[i], counts[i], i >= 4, names[i]) != 0)
            return -1;
        v->held++;
    }
    return 0;
}

static void release_sources_views(sources_views *v) {
    array_view *views[] = {&v->from, &v->to, &v->weight, &v->sources, &v->out, &v->pred};
    for (int i = 0; i < v->held; i++)
        array_view_release(views[i]);
}

PyObject *solver_solve_sources(SolverObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"source", "target", "weight", "vertices", "sources",
                               "out",    "method", "pred",   "dtype",    NULL};
    PyObject *objects[6] = {NULL, NULL, NULL, NULL, NULL, Py_None};
    Py_ssize_t vertices;
    int method, dtype = APSP_INT32;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOnOOi|Oi", keywords, &objects[0], &objects[1],
                                     &objects[2], &vertices, &objects[3], &objects[4], &method,
                                     &objects[5], &dtype))
        return NULL;
    if (!self->solver || vertices < 1 || dtype == APSP_FLOAT32 || (unsigned)dtype > APSP_FLOAT64) {
        PyErr_SetString(PyExc_ValueError,
                        "solve_sources: no solver, no vertex, or not int32, int64 or float64");
        return NULL;
    }
    Py_ssize_t edges = PyObject_Length(objects[0]), count = PyObject_Length(objects[3]);
    sources_views v;
    if (edges < 0 || count < 0 ||
        get_sources_views(objects, edges, count, vertices, dtype, &v) != 0) {
        if (edges >= 0 && count >= 0)
            release_sources_views(&v);
        return NULL;
    }
    solve_call call;
    memset(&call, 0, sizeof call);
    apsp_graph *g = NULL;
    rows_out rows = {v.out.buf, (size_t)vertices, apsp_dtype_size((apsp_dtype)dtype)};
    rows_out pred = {v.have_pred ? v.pred.buf : NULL, (size_t)vertices, sizeof(int32_t)};
    call_begin(self, &call);
    call.status = edge_list(&v.from, &v.to, &v.weight, dtype == APSP_FLOAT64, (size_t)vertices, &g,
                            &call.err);
    if (call.status == APSP_OK)
        call.status = apsp_solver_solve_sources_typed(
            self->solver, g, v.sources.buf, (size_t)count, (apsp_method)method, (apsp_dtype)dtype,
            copy_rows, &rows, v.have_pred ? copy_int32_rows : NULL, &pred, &call.report, &call.err);
    call_end(self, &call);
    apsp_graph_destroy(g);
    release_sources_views(&v);
    PyObject *report = call_result(self, &call);
    PyObject *method_text = report ? PyUnicode_FromString(call.report.method) : NULL;
    if (method_text && PyDict_SetItemString(report, "method", method_text) != 0)
        Py_CLEAR(report);
    Py_XDECREF(method_text);
    return report;
}
