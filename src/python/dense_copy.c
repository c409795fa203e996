/* Solver.solve_dense's copies (core.h, dense_copy): the caller's array into the padded matrix
 * in SciPy's dense reading, the undirected minimum, and the distances out, each split over the
 * Solver's threads (threads=; 0: the cores) by the library's parallel_slices (src/base/parallel.c,
 * compiled into the extension: the library's archive exports only the API). */
#include "core.h"

#include "base/element_types.h"
#include "base/parallel.h"

#include <math.h>
#include <pythread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE                                                                        \
    23 /* Linux's value (uapi asm-generic/mman-common.h), for older headers */
#endif

/* One source row into n cells of the kernel type: 0 is no edge, and for floats so are NaN and
 * +-inf (SciPy's nan_null and infinity_null) and every |w| <= 1e-8, subnormals included: SciPy
 * finds its null value 0 with np.ma.masked_values, whose isclose has atol 1e-8 (1e-8f, the float
 * nearest, draws the same line for float32: no float lies between it and 1e-8). The diagonal is
 * 0 whatever the self-loop weighs, as SciPy's. */
#define DENSE_ROW_IN(NAME, S, K, NO_EDGE, MARKER)                                                  \
    static void NAME(const dense_copy *c, size_t i, void *to) {                                    \
        const char *row = c->src + (Py_ssize_t)i * c->row_step;                                    \
        K *cells = to;                                                                             \
        const size_t n = c->n;                                                                     \
        if (c->col_step == sizeof(S) && !c->unweighted) /* a loop the compiler vectorizes */       \
            for (size_t j = 0; j < n; j++) {                                                       \
                const S v = ((const S *)row)[j];                                                   \
                cells[j] = (NO_EDGE) ? (MARKER) : (K)v;                                            \
            }                                                                                      \
        else                                                                                       \
            for (size_t j = 0; j < n; j++) {                                                       \
                const S v = *(const S *)(row + (Py_ssize_t)j * c->col_step);                       \
                cells[j] = (NO_EDGE) ? (MARKER) : c->unweighted ? (K)1 : (K)v;                     \
            }                                                                                      \
        cells[i] = 0;                                                                              \
    }
DENSE_ROW_IN(row_f32, float, float, !(fabsf(v) > 1e-8f) || isinf(v), INFINITY)
DENSE_ROW_IN(row_f64, double, double, !(fabs(v) > 1e-8) || isinf(v), INFINITY)
DENSE_ROW_IN(row_i32_i32, int32_t, int32_t, v == 0, APSP_INF)
DENSE_ROW_IN(row_i64_i32, int64_t, int32_t, v == 0, APSP_INF)
DENSE_ROW_IN(row_i32_i64, int32_t, int64_t, v == 0, APSP_INF64)
DENSE_ROW_IN(row_i64_i64, int64_t, int64_t, v == 0, APSP_INF64)
#undef DENSE_ROW_IN

/* Row i of the source, in the kernel type, into `cells`. */
static void read_dense_row(const dense_copy *c, size_t i, void *cells) {
    switch (c->kernel * 4 + c->from) {
    case APSP_FLOAT32 * 4 + APSP_FLOAT32:
        row_f32(c, i, cells);
        break;
    case APSP_FLOAT64 * 4 + APSP_FLOAT64:
        row_f64(c, i, cells);
        break;
    case APSP_INT32 * 4 + APSP_INT32:
        row_i32_i32(c, i, cells);
        break;
    case APSP_INT32 * 4 + APSP_INT64:
        row_i64_i32(c, i, cells);
        break;
    case APSP_INT64 * 4 + APSP_INT32:
        row_i32_i64(c, i, cells);
        break;
    case APSP_INT64 * 4 + APSP_INT64:
        row_i64_i64(c, i, cells);
        break;
    }
}

/* The threads of a pass over the n x n cells: one for a small graph. */
static unsigned copy_threads(const dense_copy *c) {
    return threads_for_bytes(c->n * c->n * apsp_dtype_size(c->from), c->threads);
}

static int dense_in(void *context, size_t begin, size_t end) {
    const dense_copy *c = context;
    for (size_t i = begin; i < end; i++)
        read_dense_row(c, i, apsp_matrix_row_cells(c->m, i));
    return 0;
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
#define SYMMETRIC_OF(TYPE, NAME, C, NONE, REAL, DIGITS) SYMMETRIC_BLOCKS(symmetric_##C, C)
ELEMENT_TYPES(SYMMETRIC_OF)
#undef SYMMETRIC_OF
#undef SYMMETRIC_BLOCKS

static void symmetric_block_row(const apsp_matrix *m, size_t bi) {
    switch (m->dtype) {
#define SYMMETRIC_CASE(TYPE, NAME, C, NONE, REAL, DIGITS)                                          \
    case TYPE:                                                                                     \
        symmetric_##C(m, bi);                                                                      \
        break;
        ELEMENT_TYPES(SYMMETRIC_CASE)
#undef SYMMETRIC_CASE
    }
}

static int dense_symmetric(void *context, size_t begin, size_t end) {
    const apsp_matrix *m = context;
    const size_t blocks = (m->n + SYMMETRIC_BLOCK - 1) / SYMMETRIC_BLOCK;
    for (size_t k = begin; k < end; k++) {
        symmetric_block_row(m, k);
        if (blocks - 1 - k != k)
            symmetric_block_row(m, blocks - 1 - k);
    }
    return 0;
}

/* The distances out: a copy of each row, or for an integer kernel float64 with inf for the
 * marker, as SciPy returns integer input. */
#define DENSE_ROW_OUT(NAME, K, MARKER)                                                             \
    static void NAME(const dense_copy *c, size_t i, const void *from) {                            \
        const K *cells = from;                                                                     \
        const size_t n = c->n;                                                                     \
        double *row = (double *)c->out + i * n;                                                    \
        for (size_t j = 0; j < n; j++)                                                             \
            row[j] = cells[j] == (MARKER) ? INFINITY : (double)cells[j];                           \
    }
DENSE_ROW_OUT(out_i32, int32_t, APSP_INF)
DENSE_ROW_OUT(out_i64, int64_t, APSP_INF64)
#undef DENSE_ROW_OUT

/* Row i of the distances, n cells of the kernel type, into the output. */
static void write_dense_row(const dense_copy *c, size_t i, const void *cells) {
    const size_t row_bytes = c->n * apsp_dtype_size(c->kernel);
    if (c->out_type == c->kernel)
        memcpy((char *)c->out + i * row_bytes, cells, row_bytes);
    else if (c->kernel == APSP_INT32)
        out_i32(c, i, cells);
    else
        out_i64(c, i, cells);
}

void dense_copy_in(dense_copy *c, int directed) {
    parallel_slices(c->n, copy_threads(c), dense_in, c);
    if (!directed) {
        const size_t blocks = (c->m->n + SYMMETRIC_BLOCK - 1) / SYMMETRIC_BLOCK;
        parallel_slices(blocks / 2 + blocks % 2, copy_threads(c), dense_symmetric, c->m);
    }
}

/* apsp_row_io's functions over the caller's arrays (dense_copy_rows). */
static void io_read(void *context, size_t i, void *cells) {
    read_dense_row(context, i, cells);
}

static void io_write(void *context, size_t i, const void *cells) {
    write_dense_row(context, i, cells);
}

/* apsp_row_io's read of a row of c->m as it is (matrix_rows), n cells of the kernel type. */
static void io_read_matrix(void *context, size_t i, void *cells) {
    const dense_copy *c = context;
    memcpy(cells, apsp_matrix_row_cells(c->m, i), c->n * apsp_dtype_size(c->kernel));
}

apsp_row_io dense_copy_matrix_rows(dense_copy *c) {
    return (apsp_row_io){io_read_matrix, io_write, c, NULL};
}

/* The distances' pages faulted in while a GPU computes, rather than by the first writes: a new
 * array's first touch costs as much as the copy out itself, so it is split over the Solver's
 * threads as the copy is. MADV_POPULATE_WRITE (Linux 5.14) maps pages writable without changing
 * a byte, so c->out may be the source too; an older kernel answers EINVAL and the writes fault
 * them in as before. Each slice takes the whole pages of its rows. */
static int populate_slice(void *context, size_t begin, size_t end) {
    const dense_copy *c = context;
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t row = c->n * apsp_dtype_size(c->out_type);
    const uintptr_t first = ((uintptr_t)c->out + begin * row + page - 1) / page * page;
    const uintptr_t last = ((uintptr_t)c->out + end * row) / page * page;
    if (last > first)
        madvise((void *)first, last - first, MADV_POPULATE_WRITE);
    return 0;
}

static void io_prepare(void *context) {
    dense_copy *c = context;
    parallel_slices(c->n, copy_threads(c), populate_slice, c);
}

apsp_row_io dense_copy_rows(dense_copy *c) {
    return (apsp_row_io){io_read, io_write, c, io_prepare};
}

/* ---- the extremes of an integer array -------------------------------------------------------- */

typedef struct extremes {
    const dense_copy *c; /* src, steps, from and n */
    PyThread_type_lock lock;
    int64_t least, most;
} extremes;

#define EXTREMES_ROWS(NAME, S)                                                                     \
    static void NAME(const dense_copy *c, size_t begin, size_t end, int64_t *least,                \
                     int64_t *most) {                                                              \
        S low = *least > 0 ? 0 : (S)*least, high = *most < 0 ? 0 : (S)*most;                       \
        const int contiguous = c->col_step == sizeof(S); /* a loop the compiler vectorizes */      \
        for (size_t i = begin; i < end; i++) {                                                     \
            const char *row = c->src + (Py_ssize_t)i * c->row_step;                                \
            for (size_t j = 0; contiguous && j < c->n; j++) {                                      \
                const S v = ((const S *)row)[j];                                                   \
                low = v < low ? v : low;                                                           \
                high = v > high ? v : high;                                                        \
            }                                                                                      \
            for (size_t j = 0; !contiguous && j < c->n; j++) {                                     \
                const S v = *(const S *)(row + (Py_ssize_t)j * c->col_step);                       \
                low = v < low ? v : low;                                                           \
                high = v > high ? v : high;                                                        \
            }                                                                                      \
        }                                                                                          \
        *least = low;                                                                              \
        *most = high;                                                                              \
    }
EXTREMES_ROWS(extremes_i32, int32_t)
EXTREMES_ROWS(extremes_i64, int64_t)
#undef EXTREMES_ROWS

static int extremes_slice(void *context, size_t begin, size_t end) {
    extremes *e = context;
    int64_t least = 0, most = 0;
    if (e->c->from == APSP_INT32)
        extremes_i32(e->c, begin, end, &least, &most);
    else
        extremes_i64(e->c, begin, end, &least, &most);
    PyThread_acquire_lock(e->lock, WAIT_LOCK);
    e->least = least < e->least ? least : e->least;
    e->most = most > e->most ? most : e->most;
    PyThread_release_lock(e->lock);
    return 0;
}

int dense_extremes(const dense_copy *c, int64_t *least, int64_t *most) {
    extremes e = {c, PyThread_allocate_lock(), 0, 0};
    if (!e.lock)
        return -1;
    parallel_slices(c->n, copy_threads(c), extremes_slice, &e);
    PyThread_free_lock(e.lock);
    *least = e.least;
    *most = e.most;
    return 0;
}
