/* array_view_get: an array's memory from NumPy's __array_interface__ (core.h says why not the
 * buffer protocol). The interface is a dict: "data" (address, read-only), "shape", "strides"
 * (None for a C-contiguous array) and "typestr" ("<f8", "<i4", ...). */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* The tuple t's items as Py_ssize_t into out[0..count). Returns 0, or -1 with an exception. */
static int ssize_items(PyObject *t, Py_ssize_t *out, Py_ssize_t count) {
    for (Py_ssize_t i = 0; i < count; i++) {
        out[i] = PyLong_AsSsize_t(PyTuple_GetItem(t, i));
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* The typestr into view->format, NUL-terminated (an unknown one as ""). */
static int read_typestr(PyObject *typestr, array_view *view) {
    PyObject *bytes = PyUnicode_AsUTF8String(typestr);
    if (!bytes)
        return -1;
    const char *s = PyBytes_AsString(bytes);
    if (s && strlen(s) < sizeof view->format)
        strcpy(view->format, s);
    Py_DECREF(bytes);
    return s ? 0 : -1;
}

/* The shape, strides, address and typestr of the interface dict d into view. Returns 0, or -1
 * with an exception set. */
static int read_interface(PyObject *d, array_view *view, int *readonly, int *contiguous) {
    PyObject *shape = PyDict_GetItemString(d, "shape");
    PyObject *strides = PyDict_GetItemString(d, "strides");
    PyObject *data = PyDict_GetItemString(d, "data");
    PyObject *typestr = PyDict_GetItemString(d, "typestr");
    if (!shape || !PyTuple_Check(shape) || !data || !PyTuple_Check(data) ||
        PyTuple_Size(data) != 2 || !typestr || !PyUnicode_Check(typestr)) {
        PyErr_SetString(PyExc_TypeError, "expected a NumPy array (no __array_interface__ data)");
        return -1;
    }
    Py_ssize_t dims = PyTuple_Size(shape), size[8];
    if (dims > 8) {
        PyErr_SetString(PyExc_ValueError, "expected an array of at most 2 dimensions");
        return -1;
    }
    if (ssize_items(shape, size, dims) != 0 || read_typestr(typestr, view) != 0)
        return -1;
    view->itemsize = strlen(view->format) > 2 ? atol(view->format + 2) : 0;
    view->ndim = (int)dims;
    view->len = view->itemsize;
    for (Py_ssize_t i = dims - 1; i >= 0; i--) { /* C-contiguous strides, then the given ones */
        if (i < 2)
            view->shape[i] = size[i], view->strides[i] = view->len;
        view->len *= size[i];
    }
    *contiguous = 1;
    if (strides && strides != Py_None) {
        Py_ssize_t step[8];
        if (!PyTuple_Check(strides) || PyTuple_Size(strides) != dims ||
            ssize_items(strides, step, dims) != 0)
            return -1;
        for (Py_ssize_t i = dims - 1, c = view->itemsize; i >= 0; c *= size[i], i--) {
            *contiguous &= size[i] < 2 || step[i] == c;
            if (i < 2)
                view->strides[i] = step[i];
        }
    }
    view->buf = PyLong_AsVoidPtr(PyTuple_GetItem(data, 0));
    *readonly = PyObject_IsTrue(PyTuple_GetItem(data, 1));
    return PyErr_Occurred() ? -1 : 0;
}

int array_view_get(PyObject *object, array_view *view, int flags) {
    memset(view, 0, sizeof *view);
    PyObject *d = PyObject_GetAttrString(object, "__array_interface__");
    if (!d)
        return -1;
    int readonly = 0, contiguous = 0;
    int status = PyDict_Check(d) ? read_interface(d, view, &readonly, &contiguous) : -1;
    Py_DECREF(d);
    if (status == 0 && (flags & ARRAY_WRITABLE) && readonly) {
        PyErr_SetString(PyExc_ValueError, "the array is read-only");
        status = -1;
    } else if (status == 0 && (flags & ARRAY_C_CONTIGUOUS) && !contiguous) {
        PyErr_SetString(PyExc_ValueError, "the array is not C-contiguous");
        status = -1;
    }
    if (status != 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "expected a NumPy array");
        return -1;
    }
    Py_INCREF(object);
    view->obj = object;
    return 0;
}

void array_view_release(array_view *view) {
    Py_CLEAR(view->obj);
}
