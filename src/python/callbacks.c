/* The library's callbacks for a Solver (core.h): the cancel function (Ctrl-C, or a progress
 * function that raised), the progress function (the Python callable of the call in progress)
 * and the log function (the library's diagnostics kept for the package, which hands them to the
 * logging module after the call), with the Solver methods that set and take them. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/* malloc, not PyMem: the log function runs without the GIL, and the limited API (the wheel's
 * abi3 build) has no PyMem_RawMalloc before 3.13. */
char *copy_text(const char *text) {
    if (!text)
        return NULL;
    char *copy = malloc(strlen(text) + 1);
    if (copy)
        strcpy(copy, text);
    return copy;
}

/* Called by the drivers between rounds, on the thread that released the GIL: a progress
 * function that raised stops the solve, and so does a signal handler that raises. */
int solver_cancel_requested(void *context) {
    SolverObject *self = context;
    if (self->progress_failed)
        return 1;
    PyGILState_STATE gil = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() != 0; /* the handler's exception stays set for solve() */
    PyGILState_Release(gil);
    return stop;
}

/* progress(done, total) of the call's callable, with the GIL taken on the solving thread (the
 * one that released it: the exception it raises is the caller's). Once it raised, or a signal
 * handler did, it is not called again and the cancel function stops the solve. */
void solver_progress(void *context, size_t done, size_t total) {
    SolverObject *self = context;
    if (!self->progress || self->progress_failed)
        return;
    PyGILState_STATE gil = PyGILState_Ensure();
    if (!PyErr_Occurred()) {
        PyObject *result =
            PyObject_CallFunction(self->progress, "nn", (Py_ssize_t)done, (Py_ssize_t)total);
        if (result)
            Py_DECREF(result);
        else
            self->progress_failed = 1;
    }
    PyGILState_Release(gil);
}

/* The library's diagnostics, kept until take_log(): a failed kernel build's log is also kept
 * for the exception. Called without the GIL: raw allocations only; a line that finds no memory
 * is dropped. */
void solver_keep_log(void *context, apsp_log_level level, const char *message) {
    SolverObject *self = context;
    if (level == APSP_LOG_ERROR) {
        free(self->build_log);
        self->build_log = copy_text(message);
    }
    if (self->log_count == self->log_capacity) {
        size_t capacity = self->log_capacity ? 2 * self->log_capacity : 8;
        log_line *lines = realloc(self->log, capacity * sizeof *lines);
        if (!lines)
            return;
        self->log = lines;
        self->log_capacity = capacity;
    }
    char *text = copy_text(message);
    if (text)
        self->log[self->log_count++] = (log_line){.level = level, .text = text};
}

void solver_free_log(SolverObject *self) {
    for (size_t i = 0; i < self->log_count; i++)
        free(self->log[i].text);
    free(self->log);
    self->log = NULL;
    self->log_count = self->log_capacity = 0;
}

/* set_progress(callable or None): the progress function of the calls to come. */
PyObject *solver_set_progress(SolverObject *self, PyObject *progress) {
    if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_SetString(PyExc_TypeError, "progress must be a callable taking (done, total)");
        return NULL;
    }
    /* Py_XINCREF, not Py_NewRef: the wheel's limited API is 3.9's, which has no Py_NewRef. */
    PyObject *kept = progress == Py_None ? NULL : progress;
    Py_XINCREF(kept);
    Py_XDECREF(self->progress);
    self->progress = kept;
    Py_RETURN_NONE;
}

/* take_log() -> [(level, text), ...]: the diagnostics since the last take_log (apsp_log_level
 * numbers), which it forgets. */
PyObject *solver_take_log(SolverObject *self, PyObject *unused) {
    (void)unused;
    PyObject *lines = PyList_New(0);
    for (size_t i = 0; lines && i < self->log_count; i++) {
        PyObject *line = Py_BuildValue("(is)", (int)self->log[i].level, self->log[i].text);
        if (!line || PyList_Append(lines, line) != 0)
            Py_CLEAR(lines);
        Py_XDECREF(line);
    }
    if (lines)
        solver_free_log(self);
    return lines;
}
