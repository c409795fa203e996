/* apsp._core: the CPython extension under the Python package apsp (src/python/apsp/).
 *
 * It knows nothing of SciPy's conventions: the package turns a graph into a dense square matrix
 * of the element type it computes in (the unreachable marker of that type off the edges, 0 on
 * the diagonal) and hands it to Solver.solve, which copies it into a padded apsp_matrix, solves
 * with the GIL released and copies the distances back in place. Arrays come through NumPy's
 * __array_interface__ (array_view.c), so no NumPy header is needed to build this.
 *
 * The padded matrix is the solver's (apsp_solver_matrix_create: pinned memory on a GPU, which
 * the upload and download move at the bus's speed) and is kept for the next call of the same
 * size and type: its padding stays as made by a successful solve, so a call writes only the
 * n x n cells. A failed solve, a call of another size or type and the Solver's end release it.
 *
 * Ctrl-C: the solver's cancel function takes the GIL between rounds and runs the pending signal
 * handlers; a handler that raised (KeyboardInterrupt) stops the solve, and Solver.solve returns
 * with that exception.
 *
 * This file: the module, its Error, devices(), the library's name lists, and the buffers a call
 * passes in (core.h lists the other files). */
#include "core.h"
#include "apsp_sources.h"
#include "base/element_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* _core.Error(message, status, log): every failure of the library; the package maps the status
 * to the exception a user expects (NegativeCycleError, ValueError, MemoryError, ...). log: a
 * failed kernel build's log, or None. */
static PyObject *core_error;

PyObject *raise_error_log(const apsp_error *err, const char *log) {
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

/* The library's name of `value` in the list, "unknown" past its end. */
static const char *library_name(library_list list, int value) {
    switch (list) {
    case LIST_BACKENDS:
        return apsp_backend_name((apsp_backend_kind)value);
    case LIST_METHODS:
        return apsp_method_name((apsp_method)value);
    case LIST_DTYPES:
        return apsp_dtype_name((apsp_dtype)value);
    }
    return "unknown";
}

PyObject *library_names(library_list list) {
    PyObject *names = PyDict_New();
    for (int v = 0; names && strcmp(library_name(list, v), "unknown") != 0; v++) {
        PyObject *number = PyLong_FromLong(v);
        if (!number || PyDict_SetItemString(names, library_name(list, v), number) != 0)
            Py_CLEAR(names);
        Py_XDECREF(number);
    }
    return names;
}

/* The element type of a view's typestr: little-endian ("<") or without order ("|"), then the
 * kind ('i' or 'f') and the size in bytes, as the library's list has them. */
int dtype_of(const array_view *view) {
    const char *f = view->format;
    if ((f[0] != '<' && f[0] != '|') || (f[1] != 'i' && f[1] != 'f'))
        return -1;
    for (int d = 0; d < ELEMENT_TYPE_COUNT; d++) {
        element_type t = element_facts((apsp_dtype)d);
        if (t.real == (f[1] == 'f') && (Py_ssize_t)t.size == view->itemsize)
            return d;
    }
    return -1;
}

int get_vector(PyObject *object, array_view *view, int dtype, Py_ssize_t count, int writable,
               const char *name) {
    int flags = ARRAY_C_CONTIGUOUS | (writable ? ARRAY_WRITABLE : 0);
    if (array_view_get(object, view, flags) != 0)
        return -1;
    if (dtype_of(view) != dtype || view->len != count * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous items of %s", name, count,
                     apsp_dtype_name((apsp_dtype)dtype));
        array_view_release(view);
        return -1;
    }
    return 0;
}

void pred_request_release(pred_request *p) {
    if (!p->have)
        return;
    array_view_release(&p->pred);
    array_view_release(&p->indptr);
    array_view_release(&p->indices);
    array_view_release(&p->weights);
}

int pred_request_get(PyObject *pred, PyObject *indptr, PyObject *indices, PyObject *weights,
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
    array_view_release(&p->indices);
no_indices:
    array_view_release(&p->indptr);
no_indptr:
    array_view_release(&p->pred);
    return -1;
}

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

/* extremes(graph, threads=0) -> (least, largest): of a square int32 or int64 array in any layout,
 * 0 counted, read on `threads` threads (0: one per core) without the GIL: NumPy's min and max
 * are two passes on one core. */
static PyObject *core_extremes(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"graph", "threads", NULL};
    (void)module;
    PyObject *graph;
    unsigned threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|I", keywords, &graph, &threads))
        return NULL;
    array_view view;
    if (array_view_get(graph, &view, 0) != 0)
        return NULL;
    const int from = dtype_of(&view);
    if (view.ndim != 2 || view.shape[0] != view.shape[1] ||
        (from != APSP_INT32 && from != APSP_INT64)) {
        PyErr_SetString(PyExc_ValueError, "extremes: expected a square int32 or int64 array");
        array_view_release(&view);
        return NULL;
    }
    dense_copy c = {.src = view.buf,
                    .row_step = view.strides[0],
                    .col_step = view.strides[1],
                    .from = (apsp_dtype)from,
                    .n = (size_t)view.shape[0],
                    .threads = threads};
    int64_t least = 0, most = 0;
    int failed;
    Py_BEGIN_ALLOW_THREADS failed = dense_extremes(&c, &least, &most);
    Py_END_ALLOW_THREADS array_view_release(&view);
    if (failed)
        return PyErr_NoMemory();
    return Py_BuildValue("(LL)", (long long)least, (long long)most);
}

static PyMethodDef core_methods[] = {
    {"devices", core_devices, METH_NOARGS, "devices() -> list of dicts (apsp_list_devices)"},
    {"extremes", (PyCFunction)(void (*)(void))core_extremes, METH_VARARGS | METH_KEYWORDS,
     "extremes(graph, threads=0) -> (least, largest) of an integer array, 0 counted"},
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

/* PyModule_AddObjectRef, which the limited API has only from 3.10 on. */
static int add_ref(PyObject *m, const char *name, PyObject *value) {
    Py_INCREF(value);
    if (PyModule_AddObject(m, name, value) == 0)
        return 0;
    Py_DECREF(value);
    return -1;
}

PyMODINIT_FUNC PyInit__core(void) {
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    PyObject *solver_type = PyType_FromSpec(&solver_spec);
    core_error = PyErr_NewException("apsp._core.Error", NULL, NULL);
    if (!solver_type || !core_error || add_ref(m, "Error", core_error) < 0 ||
        add_ref(m, "Solver", solver_type) < 0 ||
        PyModule_AddIntConstant(m, "INF32", APSP_INF) < 0 ||
        PyModule_AddObject(m, "INF64", PyLong_FromLongLong(APSP_INF64)) < 0 ||
        PyModule_AddIntConstant(m, "NO_PREDECESSOR", APSP_NO_PREDECESSOR) < 0 ||
        PyModule_AddIntConstant(m, "NEGATIVE_CYCLE", APSP_ERR_NEGATIVE_CYCLE) < 0 ||
        PyModule_AddIntConstant(m, "USAGE", APSP_ERR_USAGE) < 0 ||
        PyModule_AddIntConstant(m, "TOO_LARGE", APSP_ERR_TOO_LARGE) < 0 ||
        PyModule_AddIntConstant(m, "NO_MEMORY", APSP_ERR_NO_MEMORY) < 0 ||
        PyModule_AddIntConstant(m, "NO_DEVICE", APSP_ERR_NO_DEVICE) < 0 ||
        PyModule_AddIntConstant(m, "TILE_MAX", APSP_TILE_MAX) < 0 ||
        PyModule_AddIntConstant(m, "THREADS_MAX", APSP_THREADS_MAX) < 0 ||
        PyModule_AddStringConstant(m, "version", apsp_version()) < 0 ||
        PyModule_AddObject(m, "BACKENDS", library_names(LIST_BACKENDS)) < 0 ||
        PyModule_AddObject(m, "METHODS", library_names(LIST_METHODS)) < 0 ||
        PyModule_AddObject(m, "DTYPES", library_names(LIST_DTYPES)) < 0) {
        Py_XDECREF(solver_type);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(solver_type); /* the module's reference keeps it */
    return m;
}
