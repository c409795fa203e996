/* Checking a matrix against apsp_solve's rules (matrix.h: matrix_check_shape, matrix_check_cells,
 * matrix_check_graph_cells, matrix_padding_as_made, matrix_cell_text) and its diagonal after a
 * solve (matrix_check_cycles); matrix.c makes matrices and moves the caller's rows. */
#include "base/matrix.h"
#include "base/element_types.h"
#include "base/error.h"
#include "base/graph.h"
#include "base/parallel.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

/* ---- checking a caller's matrix ------------------------------------------------------------ */

#define CELL int32_t
#define CELL_INF APSP_INF
#define CELL_INTEGER 1
#define SCAN_ROW scan_row_int32
#include "base/matrix_scan.h"
#undef CELL
#undef CELL_INF
#undef SCAN_ROW
#define CELL int64_t
#define CELL_INF APSP_INF64
#define SCAN_ROW scan_row_int64
#include "base/matrix_scan.h"
#undef CELL
#undef CELL_INF
#undef CELL_INTEGER
#undef SCAN_ROW
#define CELL float
#define CELL_INF INFINITY
#define CELL_INTEGER 0
#define SCAN_ROW scan_row_float32
#include "base/matrix_scan.h"
#undef CELL
#undef SCAN_ROW
#define CELL double
#define SCAN_ROW scan_row_float64
#include "base/matrix_scan.h"
#undef CELL
#undef CELL_INF
#undef CELL_INTEGER
#undef SCAN_ROW

typedef size_t (*scan_row_fn)(const apsp_matrix *m, size_t i, size_t width, uint64_t *most,
                              double *most_real, int *negative);
static const scan_row_fn scan_row_by_type[] = {
    [APSP_INT32] = scan_row_int32,
    [APSP_INT64] = scan_row_int64,
    [APSP_FLOAT32] = scan_row_float32,
    [APSP_FLOAT64] = scan_row_float64,
};

typedef struct matrix_scan {
    const apsp_matrix *m;
    size_t width; /* the columns read: m->padded, or m->n for the graph's cells alone */
    pthread_mutex_t lock;
    size_t bad_i, bad_j; /* the first wrong cell in row-major order; bad_i = SIZE_MAX: none */
    uint64_t max_weight; /* the largest magnitude of a finite off-diagonal integer distance */
    double max_real;     /* the same for a floating-point one */
    int negative;        /* some cell is negative */
} matrix_scan;

static int scan_rows(void *context, size_t begin, size_t end) {
    matrix_scan *s = context;
    scan_row_fn scan_row = scan_row_by_type[s->m->dtype];
    size_t bad_i = SIZE_MAX, bad_j = 0;
    uint64_t max_weight = 0;
    double max_real = 0;
    int negative = 0;
    for (size_t i = begin; i < end && bad_i == SIZE_MAX; i++) {
        size_t j = scan_row(s->m, i, s->width, &max_weight, &max_real, &negative);
        if (j != SIZE_MAX) {
            bad_i = i;
            bad_j = j;
        }
    }
    pthread_mutex_lock(&s->lock);
    if (bad_i < s->bad_i || (bad_i == s->bad_i && bad_j < s->bad_j)) {
        s->bad_i = bad_i;
        s->bad_j = bad_j;
    }
    if (max_weight > s->max_weight)
        s->max_weight = max_weight;
    if (max_real > s->max_real)
        s->max_real = max_real;
    s->negative |= negative;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

const char *matrix_cell_text(const apsp_matrix *m, size_t i, size_t j, char *buf, size_t size) {
    const void *row = apsp_matrix_row_cells(m, i);
    switch (m->dtype) {
#define CELL_TEXT(TYPE, NAME, C, NONE, REAL, DIGITS)                                               \
    case TYPE:                                                                                     \
        if (REAL)                                                                                  \
            snprintf(buf, size, "%.*g", DIGITS, (double)((const C *)row)[j]);                      \
        else                                                                                       \
            snprintf(buf, size, "%" PRId64, (int64_t)((const C *)row)[j]);                         \
        break;
        ELEMENT_TYPES(CELL_TEXT)
#undef CELL_TEXT
    }
    return buf;
}

apsp_status matrix_check_shape(const apsp_matrix *m, apsp_error *error) {
    if (!m || !m->cells || m->n == 0)
        return fail(error, APSP_ERR_USAGE, "the matrix is missing or has no vertices");
    if (apsp_dtype_size(m->dtype) == 0)
        return fail(error, APSP_ERR_USAGE, "matrix element type %d is none of apsp_dtype's",
                    (int)m->dtype);
    if (m->padded < m->n || m->padded % APSP_MATRIX_ALIGN || m->stride < m->padded)
        return fail(error, APSP_ERR_USAGE,
                    "matrix of %zu vertices: padded = %zu must be a multiple of %d and at least "
                    "n, stride = %zu at least padded (apsp_matrix_create makes such matrices)",
                    m->n, m->padded, APSP_MATRIX_ALIGN, m->stride);
    return APSP_OK;
}

/* The scan of `rows` rows of `width` columns, on `threads` threads, judged. */
static apsp_status check_scanned(const apsp_matrix *m, size_t rows, size_t width, unsigned threads,
                                 int *negative, uint64_t *most, apsp_error *error) {
    matrix_scan s = {.m = m, .width = width, .bad_i = SIZE_MAX};
    pthread_mutex_init(&s.lock, NULL);
    parallel_slices(rows, threads, scan_rows, &s);
    pthread_mutex_destroy(&s.lock);
    char text[40];
    uint64_t inf = matrix_integer_inf(m->dtype);
    if (s.bad_i != SIZE_MAX)
        return fail(
            error, APSP_ERR_USAGE, "matrix cell (%zu, %zu) is %s: %s", s.bad_i, s.bad_j,
            matrix_cell_text(m, s.bad_i, s.bad_j, text, sizeof text),
            s.bad_i == s.bad_j                   ? "the diagonal must be 0"
            : s.bad_i >= m->n || s.bad_j >= m->n ? "padding cells must be the unreachable marker"
            : m->dtype == APSP_INT32             ? "distances must lie in (-APSP_INF, APSP_INF]"
            : m->dtype == APSP_INT64             ? "distances must lie in (-APSP_INF64, APSP_INF64]"
                                     : "distances must be numbers or +inf (no NaN, no -inf)");
    /* As the reader requires: no path of V - 1 edges may reach the unreachable marker, or its
     * negative (base/graph.h). */
    if (inf && m->n > 1 && s.max_weight > (inf - 1) / (m->n - 1))
        return fail(error, APSP_ERR_USAGE,
                    "matrix: a weight of magnitude %" PRIu64 " with V = %zu lets a path reach %s; "
                    "weights must stay within +-%" PRIu64,
                    s.max_weight, m->n, m->dtype == APSP_INT32 ? "APSP_INF" : "APSP_INF64",
                    (inf - 1) / (m->n - 1));
    /* The floating-point types' rule (base/graph.h): no path's length may overflow to inf. */
    double most_real = real_weight_most(m->n, m->dtype);
    int digits = element_digits(m->dtype); /* as matrix_cell_text */
    if (!inf && s.max_real > most_real)
        return fail(error, APSP_ERR_USAGE,
                    "matrix: a weight of magnitude %.*g with V = %zu lets a path's length "
                    "overflow to inf; %s weights must stay within +-%.*g",
                    digits, s.max_real, m->n, apsp_dtype_name(m->dtype), digits, most_real);
    *negative = s.negative;
    if (most)
        *most = s.max_weight;
    return APSP_OK;
}

apsp_status matrix_check_cells(const apsp_matrix *m, unsigned threads, int *negative,
                               uint64_t *most, apsp_error *error) {
    size_t bytes = m->padded * m->stride * apsp_dtype_size(m->dtype);
    return check_scanned(m, m->padded, m->padded, bytes < PARALLEL_FILL_BYTES ? 1 : threads,
                         negative, most, error);
}

/* Whether `count` cells of `size` bytes (4 or 8) all hold the bytes of `pattern`'s cell: one
 * loop of xor and or that the compiler vectorises, the padding's check at memory speed. */
static int cells_hold(const char *cells, size_t count, size_t size, const void *pattern) {
    if (size == sizeof(uint32_t)) {
        uint32_t want, diff = 0;
        memcpy(&want, pattern, sizeof want);
        const uint32_t *c = (const uint32_t *)(const void *)cells;
        for (size_t j = 0; j < count; j++)
            diff |= c[j] ^ want;
        return diff == 0;
    }
    uint64_t want, diff = 0;
    memcpy(&want, pattern, sizeof want);
    const uint64_t *c = (const uint64_t *)(const void *)cells;
    for (size_t j = 0; j < count; j++)
        diff |= c[j] ^ want;
    return diff == 0;
}

int matrix_padding_as_made(const apsp_matrix *m) {
    _Alignas(8) unsigned char marker[sizeof(double)], zero[sizeof(double)];
    matrix_fill_row(m->dtype, marker, 1, SIZE_MAX);
    matrix_fill_row(m->dtype, zero, 1, 0);
    const size_t cell = apsp_dtype_size(m->dtype);
    int ok = 1;
    for (size_t i = 0; i < m->n && ok; i++)
        ok = cells_hold((const char *)apsp_matrix_row_cells(m, i) + m->n * cell, m->padded - m->n,
                        cell, marker);
    for (size_t i = m->n; i < m->padded && ok; i++) {
        const char *row = apsp_matrix_row_cells(m, i);
        ok = cells_hold(row, i, cell, marker) && cells_hold(row + i * cell, 1, cell, zero) &&
             cells_hold(row + (i + 1) * cell, m->padded - i - 1, cell, marker);
    }
    return ok;
}

apsp_status matrix_check_graph_cells(const apsp_matrix *m, int *negative, uint64_t *most,
                                     apsp_error *error) {
    if (!matrix_padding_as_made(m)) /* the whole check names the cell */
        return matrix_check_cells(m, 1, negative, most, error);
    return check_scanned(m, m->n, m->n, 1, negative, most, error);
}

apsp_status matrix_check_cycles(const apsp_matrix *m, apsp_error *error) {
    for (size_t i = 0; i < m->n; i++)
        if (cell_below_zero(m->dtype, apsp_matrix_row_cells(m, i), i))
            return fail_negative_cycle(error, i);
    return APSP_OK;
}
