/* The padded host distance matrix. */
#include "base/matrix.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/memory_room.h"
#include "base/parallel.h"
#include "base/util.h"

#include <pthread.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static size_t padded_size(uint64_t n) {
    return (size_t)((n + APSP_MATRIX_ALIGN - 1) / APSP_MATRIX_ALIGN * APSP_MATRIX_ALIGN);
}

/* Rows that start a multiple of 4 KiB apart map to the same cache sets; a little slack in the
 * pitch spreads them out. 16 ints keep every row 64-byte aligned. */
static size_t row_stride(size_t padded) {
    return padded % 1024 == 0 ? padded + 16 : padded;
}

uint64_t apsp_matrix_bytes_typed(uint64_t n, apsp_dtype dtype) {
    size_t cell = apsp_dtype_size(dtype);
    if (n == 0 || n > (uint64_t)1 << 31 || cell == 0)
        return 0;
    uint64_t padded = padded_size(n);
    uint64_t stride = row_stride((size_t)padded);
    if (padded > SIZE_MAX / stride / cell)
        return 0;
    return padded * stride * cell;
}

uint64_t apsp_matrix_bytes(uint64_t n) {
    return apsp_matrix_bytes_typed(n, APSP_INT32);
}

enum { PARALLEL_FILL_BYTES = 64 << 20 };

/* `count` cells of a row of `dtype`: 0 at column `diagonal` (SIZE_MAX: none), the unreachable
 * marker elsewhere. */
static void fill_row(apsp_dtype dtype, void *row, size_t count, size_t diagonal) {
    switch (dtype) {
    case APSP_INT32:
        for (size_t j = 0; j < count; j++)
            ((int32_t *)row)[j] = j == diagonal ? 0 : APSP_INF;
        break;
    case APSP_INT64:
        for (size_t j = 0; j < count; j++)
            ((int64_t *)row)[j] = j == diagonal ? 0 : APSP_INF64;
        break;
    case APSP_FLOAT32:
        for (size_t j = 0; j < count; j++)
            ((float *)row)[j] = j == diagonal ? 0.0f : INFINITY;
        break;
    case APSP_FLOAT64:
        for (size_t j = 0; j < count; j++)
            ((double *)row)[j] = j == diagonal ? 0.0 : INFINITY;
        break;
    }
}

/* Rows [begin, end) of an edgeless matrix: 0 on the diagonal, the unreachable marker elsewhere. */
static int fill_rows(void *context, size_t begin, size_t end) {
    const apsp_matrix *m = context;
    for (size_t i = begin; i < end; i++)
        fill_row(m->dtype, apsp_matrix_row_cells(m, i), m->stride, i);
    return 0;
}

apsp_status matrix_fits_memory(size_t n, apsp_error *error) {
    return matrix_fits_memory_typed(n, APSP_INT32, error);
}

apsp_status matrix_addressable(size_t n, apsp_dtype dtype, apsp_error *error) {
    if (n == 0)
        return fail(error, APSP_ERR_USAGE, "a matrix needs at least one vertex");
    if (apsp_dtype_size(dtype) == 0)
        return fail(error, APSP_ERR_USAGE, "element type %d is none of apsp_dtype's", (int)dtype);
    if (apsp_matrix_bytes_typed(n, dtype) == 0)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "V = %zu: the distance matrix would need more memory than can be addressed", n);
    return APSP_OK;
}

/* A matrix this small is not weighed against the machine's memory: any machine has room for it,
 * and its allocation says so where not (APSP_ERR_NO_MEMORY). 1 MiB: an int32 matrix of 512
 * vertices, a float64 one of 362. */
enum { MATRIX_UNCHECKED_BYTES = 1 << 20 };

apsp_status matrix_fits_memory_typed(size_t n, apsp_dtype dtype, apsp_error *error) {
    char need[32], have[320];
    apsp_status status = matrix_addressable(n, dtype, error);
    if (status != APSP_OK)
        return status;
    uint64_t bytes = apsp_matrix_bytes_typed(n, dtype);
    if (bytes <
        MATRIX_UNCHECKED_BYTES) /* reading /proc and the cgroups costs more than its solve */
        return APSP_OK;
    uint64_t memory = physical_memory_said(have, sizeof have);
    if (memory && bytes > memory)
        return fail(error, APSP_ERR_TOO_LARGE, "V = %zu: the %s distance matrix needs %s but %s", n,
                    apsp_dtype_name(dtype), format_bytes(bytes, need, sizeof need), have);
    return APSP_OK;
}

apsp_status matrix_fits_room(size_t n, apsp_dtype dtype, uint64_t beside, const char *beside_what,
                             apsp_error *error) {
    char what[192];
    snprintf(what, sizeof what, "V = %zu: the %s distance matrix%s%.100s", n,
             apsp_dtype_name(dtype), beside ? " with " : "", beside ? beside_what : "");
    return memory_room_check(apsp_matrix_bytes_typed(n, dtype) + beside, what, error);
}

/* The header of a matrix of n vertices, its cells filled as an edgeless graph's. */
static apsp_status make_matrix(size_t n, apsp_dtype dtype, void *cells, unsigned threads,
                               apsp_matrix **out, apsp_error *error) {
    apsp_matrix *m = apsp_malloc(sizeof *m);
    if (!m)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory allocating a matrix header");
    m->n = n;
    m->padded = padded_size(n);
    m->stride = row_stride(m->padded);
    m->dtype = dtype;
    m->cells = cells;
    m->owner = NULL;
    /* Filling a large matrix is mostly page faults, which cores take in parallel. */
    uint64_t bytes = apsp_matrix_bytes_typed(n, dtype);
    parallel_slices(m->padded, bytes < PARALLEL_FILL_BYTES ? 1 : threads, fill_rows, m);
    *out = m;
    return APSP_OK;
}

apsp_status matrix_create_threads(size_t n, apsp_dtype dtype, unsigned threads, apsp_matrix **out,
                                  apsp_error *error) {
    *out = NULL;
    char need[32];
    apsp_status status = matrix_fits_memory_typed(n, dtype, error);
    if (status == APSP_OK)
        status = matrix_fits_room(n, dtype, 0, NULL, error);
    if (status != APSP_OK)
        return status;
    uint64_t bytes = apsp_matrix_bytes_typed(n, dtype);
    void *cells = alloc_large((size_t)bytes); /* blocks read a row pitch apart */
    if (!cells)
        return fail(error, APSP_ERR_NO_MEMORY,
                    "V = %zu: could not allocate %s for the distance matrix", n,
                    format_bytes(bytes, need, sizeof need));
    status = make_matrix(n, dtype, cells, threads, out, error);
    if (status != APSP_OK)
        free(cells);
    return status;
}

apsp_status apsp_matrix_create_typed(size_t n, apsp_dtype dtype, apsp_matrix **out,
                                     apsp_error *error) {
    return matrix_create_threads(n, dtype, 0, out, error);
}

apsp_status matrix_create_in(size_t n, apsp_dtype dtype, void *cells,
                             struct apsp_matrix_owner *owner, unsigned threads, apsp_matrix **out,
                             apsp_error *error) {
    apsp_status status = make_matrix(n, dtype, cells, threads, out, error);
    if (status != APSP_OK)
        owner->release(owner);
    else
        (*out)->owner = owner;
    return status;
}

apsp_status apsp_matrix_create(size_t n, apsp_matrix **out, apsp_error *error) {
    return apsp_matrix_create_typed(n, APSP_INT32, out, error);
}

void apsp_matrix_destroy(apsp_matrix *matrix) {
    if (!matrix)
        return;
    if (matrix->owner)
        matrix->owner->release(matrix->owner);
    else
        free(matrix->cells);
    free(matrix);
}

/* Rows [begin, end) of a floating-point matrix with every zero made +0. */
static int clear_rows(void *context, size_t begin, size_t end) {
    const apsp_matrix *m = context;
    for (size_t i = begin; i < end; i++) {
        void *row = apsp_matrix_row_cells(m, i);
        if (m->dtype == APSP_FLOAT32) {
            float *cells = row;
            for (size_t j = 0; j < m->n; j++)
                if (cells[j] == 0.0f)
                    cells[j] = 0.0f;
        } else {
            double *cells = row;
            for (size_t j = 0; j < m->n; j++)
                if (cells[j] == 0.0)
                    cells[j] = 0.0;
        }
    }
    return 0;
}

void matrix_clear_negative_zeros(apsp_matrix *m, unsigned threads) {
    if (m->dtype != APSP_FLOAT32 && m->dtype != APSP_FLOAT64)
        return;
    size_t bytes = m->padded * m->stride * apsp_dtype_size(m->dtype);
    parallel_slices(m->n, bytes < PARALLEL_FILL_BYTES ? 1 : threads, clear_rows, m);
}

/* ---- the caller's rows (apsp_row_io) ----------------------------------------------------- */

typedef struct row_pass {
    apsp_matrix *m;
    const apsp_row_io *io;
} row_pass;

/* A float row's -0 cells made +0 while it is in cache, as matrix_clear_negative_zeros would. */
static int read_rows(void *context, size_t begin, size_t end) {
    const row_pass *p = context;
    const int floats = p->m->dtype == APSP_FLOAT32 || p->m->dtype == APSP_FLOAT64;
    for (size_t i = begin; i < end; i++) {
        p->io->read(p->io->context, i, apsp_matrix_row_cells(p->m, i));
        if (floats)
            clear_rows(p->m, i, i + 1);
    }
    return 0;
}

static int write_rows(void *context, size_t begin, size_t end) {
    const row_pass *p = context;
    for (size_t i = begin; i < end; i++)
        p->io->write(p->io->context, i, apsp_matrix_row_cells(p->m, i));
    return 0;
}

/* The threads of a pass over the n x n cells: one for a small matrix. */
static unsigned row_threads(const apsp_matrix *m, unsigned threads) {
    return apsp_matrix_bytes_typed(m->n, m->dtype) < PARALLEL_FILL_BYTES ? 1 : threads;
}

void matrix_read_rows(apsp_matrix *m, const apsp_row_io *io, unsigned threads) {
    row_pass p = {m, io};
    parallel_slices(m->n, row_threads(m, threads), read_rows, &p);
}

void matrix_write_rows(apsp_matrix *m, const apsp_row_io *io, unsigned threads) {
    row_pass p = {m, io};
    parallel_slices(m->n, row_threads(m, threads), write_rows, &p);
}

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
    case APSP_INT32:
        snprintf(buf, size, "%" PRId32, ((const int32_t *)row)[j]);
        break;
    case APSP_INT64:
        snprintf(buf, size, "%" PRId64, ((const int64_t *)row)[j]);
        break;
    case APSP_FLOAT32:
        snprintf(buf, size, "%.9g", (double)((const float *)row)[j]);
        break;
    case APSP_FLOAT64:
        snprintf(buf, size, "%.17g", ((const double *)row)[j]);
        break;
    }
    return buf;
}

/* The integer types' unreachable marker (0 for the floating-point types: no rule applies). */
static uint64_t integer_inf(apsp_dtype dtype) {
    return dtype == APSP_INT32 ? APSP_INF : dtype == APSP_INT64 ? APSP_INF64 : 0;
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
    uint64_t inf = integer_inf(m->dtype);
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
    int digits = m->dtype == APSP_FLOAT32 ? 9 : 17; /* as matrix_cell_text */
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
    fill_row(m->dtype, marker, 1, SIZE_MAX);
    fill_row(m->dtype, zero, 1, 0);
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

/* ---- the caller's rows read and checked in one pass ---------------------------------------- */

typedef struct checked_read {
    row_pass pass;
    pthread_mutex_t lock;
    int broken; /* some row breaks the rules: matrix_check_cells must say which */
    int negative;
    uint64_t most;
} checked_read;

/* Row i's n cells against the rules SCAN_ROW applies, in one loop without branches that the
 * compiler vectorizes: 0 when a cell breaks them (matrix_check_cells then names it), else 1 with
 * the row's negativity and largest |weight| below INF added (the diagonal, 0, adds nothing). The
 * row's padding is not read: the solver's matrix has it as made. */
#define FAST_SCAN_ROW(NAME, CELL, UCELL, INF)                                                      \
    static int NAME(const void *cells, size_t n, size_t i, uint64_t *most, int *negative) {        \
        const CELL *row = cells;                                                                   \
        UCELL largest = 0;                                                                         \
        int below = 0, ok = 1;                                                                     \
        for (size_t j = 0; j < n; j++) {                                                           \
            const CELL c = row[j];                                                                 \
            const UCELL size = c < 0 ? (UCELL)0 - (UCELL)c : (UCELL)c;                             \
            ok &= c > -(INF) && c <= (INF);                                                        \
            below |= c < 0;                                                                        \
            largest = c != (INF) && size > largest ? size : largest;                               \
        }                                                                                          \
        if (!ok || row[i] != 0)                                                                    \
            return 0;                                                                              \
        *negative |= below;                                                                        \
        *most = largest > *most ? largest : *most;                                                 \
        return 1;                                                                                  \
    }
FAST_SCAN_ROW(fast_scan_int32, int32_t, uint32_t, APSP_INF)
FAST_SCAN_ROW(fast_scan_int64, int64_t, uint64_t, APSP_INF64)
#undef FAST_SCAN_ROW

/* read_rows for an integer matrix, each row scanned while it is still in cache. */
static int read_and_scan_rows(void *context, size_t begin, size_t end) {
    checked_read *r = context;
    const apsp_matrix *m = r->pass.m;
    uint64_t most = 0;
    int negative = 0, ok = 1;
    for (size_t i = begin; i < end; i++) {
        void *row = apsp_matrix_row_cells(m, i);
        r->pass.io->read(r->pass.io->context, i, row);
        ok &= m->dtype == APSP_INT32 ? fast_scan_int32(row, m->n, i, &most, &negative)
                                     : fast_scan_int64(row, m->n, i, &most, &negative);
    }
    pthread_mutex_lock(&r->lock);
    r->broken |= !ok;
    r->negative |= negative;
    r->most = most > r->most ? most : r->most;
    pthread_mutex_unlock(&r->lock);
    return 0;
}

int matrix_read_rows_known(apsp_matrix *m, const apsp_row_io *io, unsigned threads,
                           cell_facts *known) {
    const uint64_t inf = integer_inf(m->dtype);
    if (!inf) {
        matrix_read_rows(m, io, threads);
        return 0;
    }
    checked_read r = {.pass = {m, io}};
    pthread_mutex_init(&r.lock, NULL);
    parallel_slices(m->n, row_threads(m, threads), read_and_scan_rows, &r);
    pthread_mutex_destroy(&r.lock);
    /* A row or a weight against the rules: matrix_check_cells finds it and names it. */
    if (r.broken || (m->n > 1 && r.most > (inf - 1) / (m->n - 1)))
        return 0;
    *known = (cell_facts){r.negative, r.most};
    return 1;
}

/* Whether d(i, i) is negative. */
static int diagonal_negative(const apsp_matrix *m, size_t i) {
    const void *row = apsp_matrix_row_cells(m, i);
    switch (m->dtype) {
    case APSP_INT32:
        return ((const int32_t *)row)[i] < 0;
    case APSP_INT64:
        return ((const int64_t *)row)[i] < 0;
    case APSP_FLOAT32:
        return ((const float *)row)[i] < 0;
    case APSP_FLOAT64:
        return ((const double *)row)[i] < 0;
    }
    return 0;
}

apsp_status matrix_check_cycles(const apsp_matrix *m, apsp_error *error) {
    for (size_t i = 0; i < m->n; i++)
        if (diagonal_negative(m, i))
            return fail_negative_cycle(error, i);
    return APSP_OK;
}
