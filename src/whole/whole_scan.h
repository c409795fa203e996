/* The scan of a float graph's cells and the plan it makes (whole_scan.c), and what the scan and
 * whole_floats.c's conversions share: where the cells come from and a cell as a double. Private
 * to src/whole/. */
#ifndef APSP_WHOLE_SCAN_H
#define APSP_WHOLE_SCAN_H

#include "apsp.h"
#include "base/element_types.h"
#include "base/fault.h"
#include "base/matrix.h"

#include <math.h>
#include <stdint.h>

/* Where the float cells come from: the caller's padded matrix (its padding checked too), or the
 * caller's rows (apsp_row_io), each read into a row buffer of the reading thread. */
typedef struct float_source {
    apsp_matrix *m; /* NULL: io */
    const apsp_row_io *io;
    size_t n;
    apsp_dtype dtype;
    size_t scanned; /* a matrix's rows and cells the scan reads (float_source_of_matrix) */
} float_source;

/* A matrix as a source: its padding scanned too, unless it is as made (matrix_padding_as_made,
 * at memory speed: a 30-vertex graph is 900 cells of its 16384). */
static inline float_source float_source_of_matrix(apsp_matrix *m) {
    const size_t scanned = matrix_padding_as_made(m) ? m->n : m->padded;
    return (float_source){.m = m, .n = m->n, .dtype = m->dtype, .scanned = scanned};
}

/* The rows the scan reads and the cells of each. */
static inline size_t source_rows(const float_source *src) {
    return src->m ? src->scanned : src->n;
}

/* Row i of the source: the matrix's, or read by the caller into `buffer`. */
static inline const void *source_row(const float_source *src, size_t i, void *buffer) {
    if (src->m)
        return apsp_matrix_row_cells(src->m, i);
    src->io->read(src->io->context, i, buffer);
    return buffer;
}

/* A row buffer for a thread of a row source (NULL for a matrix source, which needs none);
 * *failed says whether the allocation failed. */
static inline void *source_buffer(const float_source *src, int *failed) {
    void *buffer = src->m ? NULL : apsp_malloc(src->n * apsp_dtype_size(src->dtype));
    *failed = !src->m && !buffer;
    return buffer;
}

/* Cell j of a row of `type` as a double: the integer types' marker as +inf. Whole numbers of the
 * bound's size (at most 2^53) are exact in a double, and so are float32 values. Inlined with a
 * constant type, so that each conversion (whole_floats.c) and scan is a loop of its own. */
static inline __attribute__((always_inline)) double cell_number(apsp_dtype type, const void *row,
                                                                size_t j) {
    switch (type) {
#define CELL_NUMBER(TYPE, NAME, C, NONE, REAL, DIGITS)                                             \
    case TYPE: {                                                                                   \
        C v = ((const C *)row)[j];                                                                 \
        return !REAL && v == (C)(NONE) ? (double)INFINITY : (double)v;                             \
    }
        ELEMENT_TYPES(CELL_NUMBER)
#undef CELL_NUMBER
    }
    return ((const double *)row)[j];
}

enum { PARALLEL_BYTES = 16 << 20 };

/* The threads for a pass over the source's cells: one for a small matrix. */
static inline unsigned threads_for(const float_source *src, unsigned threads) {
    size_t rows = source_rows(src);
    return rows * rows * apsp_dtype_size(src->dtype) < PARALLEL_BYTES ? 1 : threads;
}

/* The kernels the weights allow, and why (whole_floats.h). */
typedef struct whole_plan {
    apsp_dtype kernels;
    char why[192];
    /* For the integer kernels: what matrix_check_cells would find in the integer matrix, read
     * off every cell by the scan (a whole weight within the bound converts exactly, -0.0 to 0),
     * so that the driver need not read it again. */
    cell_facts facts;
} whole_plan;

/* Which integer kernels hold every sum exactly for whole weights of magnitude at most `most`
 * in a graph of n vertices of float type `dtype` (whole_floats.h's bound), into plan->kernels
 * (dtype itself: the float path) and plan->why. */
void whole_plan_bound(size_t n, apsp_dtype dtype, double most, whole_plan *plan);

/* Reads the first `rows` rows of the source alone, writing nothing: returns 1 with the float
 * path planned when they hold a cell that takes it (a fraction, or one against the rules), else
 * 0 (nothing there, or no room for a row buffer: the whole scan says). */
int scan_first_rows(const float_source *src, size_t rows, whole_plan *plan);

/* Reads every cell of the source once, writing them into `integer` (int32, unless NULL) as it
 * goes, and says which kernels to run. A row buffer that finds no memory: the float path. */
void scan_and_plan(const float_source *src, apsp_matrix *integer, unsigned threads,
                   whole_plan *plan);

#endif
