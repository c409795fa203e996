/* apsp._core.Solver.solve_batch (core.h): a batch of graphs (apsp_solver_solve_batch), given as
 * their cells or as a graph-learning batch's edges, each graph made from its edges in C on the
 * thread that solves it. */
#include "core.h"

#include <stdlib.h>

/* A C-contiguous one-dimensional int64 buffer; its length in *count. 0, or -1 with ValueError
 * naming it. */
static int get_int64s(PyObject *object, array_view *view, Py_ssize_t *count, const char *name) {
    if (array_view_get(object, view, ARRAY_C_CONTIGUOUS) != 0)
        return -1;
    if (view->ndim != 1 || dtype_of(view) != APSP_INT64) {
        PyErr_Format(PyExc_ValueError, "%s: expected a contiguous one-dimensional int64 array",
                     name);
        array_view_release(view);
        return -1;
    }
    *count = view->len / view->itemsize;
    return 0;
}

/* The int64 buffer's values as size_t (malloc'd), each checked non-negative; NULL with
 * ValueError or MemoryError. */
static size_t *sizes_of(const array_view *view, Py_ssize_t count, const char *name) {
    size_t *sizes = malloc((size_t)(count ? count : 1) * sizeof *sizes);
    if (!sizes)
        return (size_t *)PyErr_NoMemory();
    const int64_t *values = view->buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (values[i] < 0) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] is negative", name, i);
            free(sizes);
            return NULL;
        }
        sizes[i] = (size_t)values[i];
    }
    return sizes;
}

/* The cells a batch of these sizes takes in its layout. */
static Py_ssize_t cells_of(const size_t *vertices, Py_ssize_t count, size_t pitch) {
    if (pitch)
        return count * (Py_ssize_t)(pitch * pitch);
    Py_ssize_t cells = 0;
    for (Py_ssize_t g = 0; g < count; g++)
        cells += (Py_ssize_t)(vertices[g] * vertices[g]);
    return cells;
}

/* The buffers of one call, released together. */
typedef struct batch_buffers {
    array_view cells, pred, vertices, source, target, weight, first;
    int have_pred, have_edges, have_weight, have_first;
} batch_buffers;

static void release_buffers(batch_buffers *b) {
    array_view_release(&b->cells);
    array_view_release(&b->vertices);
    if (b->have_pred)
        array_view_release(&b->pred);
    if (b->have_edges) {
        array_view_release(&b->source);
        array_view_release(&b->target);
        if (b->have_first)
            array_view_release(&b->first);
    }
    if (b->have_weight)
        array_view_release(&b->weight);
}

/* The edges' buffers: source and target of E, first None (the library finds each graph's
 * first edge) or of count + 1, weight None or E items of dtype; E into *edges. 0, or -1 with an
 * exception set (the buffers taken so far recorded in b). */
static int get_edges(PyObject *source, PyObject *target, PyObject *weight, PyObject *first,
                     int dtype, Py_ssize_t count, batch_buffers *b, Py_ssize_t *edges) {
    Py_ssize_t targets, firsts = count + 1;
    if (get_int64s(source, &b->source, edges, "source") != 0)
        return -1;
    if (get_int64s(target, &b->target, &targets, "target") != 0) {
        array_view_release(&b->source);
        return -1;
    }
    b->have_first = first != Py_None;
    if (b->have_first && get_int64s(first, &b->first, &firsts, "first") != 0) {
        array_view_release(&b->source);
        array_view_release(&b->target);
        return -1;
    }
    b->have_edges = 1;
    const int64_t *f = b->have_first ? b->first.buf : NULL;
    if (targets != *edges || firsts != count + 1 || (f && (f[0] < 0 || f[count] > *edges))) {
        PyErr_Format(PyExc_ValueError,
                     "source and target: expected as many (%zd, %zd), and first: %zd entries "
                     "within them",
                     *edges, targets, count + 1);
        return -1;
    }
    if (weight == Py_None)
        return 0;
    if (get_vector(weight, &b->weight, dtype, *edges, 0, "weight") != 0)
        return -1;
    b->have_weight = 1;
    return 0;
}

/* solve_batch(cells, vertices, pitch=0, pred=None, source=None, target=None, weight=None,
 * first=None, undirected=False): apsp_solver_solve_batch over `cells` (C-contiguous, of the
 * batch's element type, exactly the cells of the layout: packed with pitch 0, else count x
 * pitch x pitch), `vertices` (int64 per graph), predecessors into `pred` (int32, as cells);
 * with source, target (int64) and first (None: the edges grouped by graph, found by the library;
 * or int64, count + 1), the graphs made from those edges (apsp_batch_edges; weight None: 1).
 * Returns the report. */
PyObject *solver_solve_batch(SolverObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"cells",  "vertices", "pitch", "pred",       "source",
                               "target", "weight",   "first", "undirected", NULL};
    PyObject *cells, *vertices, *pred = Py_None, *source = Py_None, *target = Py_None;
    PyObject *weight = Py_None, *first = Py_None;
    Py_ssize_t pitch = 0;
    int undirected = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|nOOOOOp", keywords, &cells, &vertices,
                                     &pitch, &pred, &source, &target, &weight, &first, &undirected))
        return NULL;
    if (!self->solver || pitch < 0) {
        PyErr_SetString(PyExc_ValueError, "an initialized Solver and a pitch >= 0 are needed");
        return NULL;
    }
    batch_buffers b = {.have_pred = 0};
    Py_ssize_t count;
    if (get_int64s(vertices, &b.vertices, &count, "vertices") != 0)
        return NULL;
    size_t *sizes = sizes_of(&b.vertices, count, "vertices");
    if (!sizes) {
        array_view_release(&b.vertices);
        return NULL;
    }
    if (array_view_get(cells, &b.cells, ARRAY_WRITABLE | ARRAY_C_CONTIGUOUS) != 0) {
        array_view_release(&b.vertices);
        free(sizes);
        return NULL;
    }
    const int dtype = dtype_of(&b.cells);
    const Py_ssize_t want = cells_of(sizes, count, (size_t)pitch);
    PyObject *result = NULL;
    if (dtype < 0 || b.cells.len != want * b.cells.itemsize) {
        PyErr_Format(PyExc_ValueError, "cells: expected %zd of int32, int64, float32 or float64",
                     want);
        goto done;
    }
    if (pred != Py_None) {
        if (get_vector(pred, &b.pred, APSP_INT32, want, 1, "pred") != 0)
            goto done;
        b.have_pred = 1;
    }
    Py_ssize_t edge_count = 0;
    if (source != Py_None &&
        get_edges(source, target, weight, first, dtype, count, &b, &edge_count) != 0)
        goto done;
    size_t *firsts = b.have_first ? sizes_of(&b.first, count + 1, "first") : NULL;
    if (b.have_first && !firsts)
        goto done;
    const apsp_batch_edges edges = {
        .source = b.have_edges ? b.source.buf : NULL,
        .target = b.have_edges ? b.target.buf : NULL,
        .weight = b.have_weight ? b.weight.buf : NULL,
        .first = firsts,
        .undirected = undirected,
        .edge_count = (size_t)edge_count,
    };
    const apsp_batch batch = {
        .count = (size_t)count,
        .vertices = sizes,
        .dtype = (apsp_dtype)dtype,
        .cells = b.cells.buf,
        .pitch = (size_t)pitch,
        .predecessors = b.have_pred ? b.pred.buf : NULL,
        .edges = b.have_edges ? &edges : NULL,
    };
    solve_call call;
    call_begin(self, &call);
    call.seconds[0] = call.seconds[1] = 0;
    call.status = apsp_solver_solve_batch(self->solver, &batch, &call.report, &call.err);
    call_end(self, &call);
    free(firsts);
    result = call_result(self, &call);
done:
    release_buffers(&b);
    free(sizes);
    return result;
}
