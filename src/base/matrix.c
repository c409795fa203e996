/* The padded host distance matrix. */
#include "base/matrix.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/parallel.h"
#include "base/util.h"

#include <pthread.h>
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

uint64_t apsp_matrix_bytes(uint64_t n) {
    if (n == 0 || n > (uint64_t)1 << 31)
        return 0;
    uint64_t padded = padded_size(n);
    uint64_t stride = row_stride((size_t)padded);
    if (padded > SIZE_MAX / stride / sizeof(int32_t))
        return 0;
    return padded * stride * sizeof(int32_t);
}

enum { PARALLEL_FILL_BYTES = 64 << 20 };

/* Rows [begin, end) of an edgeless matrix: 0 on the diagonal, APSP_INF elsewhere. */
static int fill_rows(void *context, size_t begin, size_t end) {
    const apsp_matrix *m = context;
    for (size_t i = begin; i < end; i++) {
        int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = 0; j < m->stride; j++)
            row[j] = APSP_INF;
        row[i] = 0;
    }
    return 0;
}

apsp_status matrix_fits_memory(size_t n, apsp_error *error) {
    char need[32], have[32];
    uint64_t bytes = apsp_matrix_bytes(n);
    if (n == 0)
        return fail(error, APSP_ERR_USAGE, "a matrix needs at least one vertex");
    if (bytes == 0)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "V = %zu: the distance matrix would need more memory than can be addressed", n);
    uint64_t memory = physical_memory();
    if (memory && bytes > memory)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "V = %zu: the distance matrix needs %s but this machine has %s of memory", n,
                    format_bytes(bytes, need, sizeof need),
                    format_bytes(memory, have, sizeof have));
    return APSP_OK;
}

apsp_status apsp_matrix_create(size_t n, apsp_matrix **out, apsp_error *error) {
    *out = NULL;
    char need[32];
    uint64_t bytes = apsp_matrix_bytes(n);
    apsp_status fits = matrix_fits_memory(n, error);
    if (fits != APSP_OK)
        return fits;

    apsp_matrix *m = apsp_malloc(sizeof *m);
    if (!m)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory allocating a matrix header");
    m->n = n;
    m->padded = padded_size(n);
    m->stride = row_stride(m->padded);
    m->data = apsp_aligned_alloc(64, (size_t)bytes);
    if (!m->data) {
        free(m);
        return fail(error, APSP_ERR_NO_MEMORY,
                    "V = %zu: could not allocate %s for the distance matrix", n,
                    format_bytes(bytes, need, sizeof need));
    }
    /* Filling a large matrix is mostly page faults, which cores take in parallel. */
    parallel_slices(m->padded, bytes < PARALLEL_FILL_BYTES ? 1 : 0, fill_rows, m);
    *out = m;
    return APSP_OK;
}

void apsp_matrix_destroy(apsp_matrix *matrix) {
    if (!matrix)
        return;
    free(matrix->data);
    free(matrix);
}

/* ---- checking a caller's matrix ------------------------------------------------------------ */

typedef struct matrix_scan {
    const apsp_matrix *m;
    pthread_mutex_t lock;
    size_t bad_i, bad_j; /* the first wrong cell in row-major order; bad_i = SIZE_MAX: none */
    int32_t max_weight;  /* the largest magnitude of a finite off-diagonal distance */
    int negative;        /* some cell is negative */
} matrix_scan;

/* What cell (i, j) must hold: a distance -APSP_INF < d <= APSP_INF in the graph (0 on the
 * diagonal), and in the padding exactly what apsp_matrix_create puts there. */
static int cell_ok(const apsp_matrix *m, size_t i, size_t j, int32_t c) {
    if (i == j)
        return c == 0;
    if (i >= m->n || j >= m->n)
        return c == APSP_INF;
    return c > -APSP_INF && c <= APSP_INF;
}

static int scan_rows(void *context, size_t begin, size_t end) {
    matrix_scan *s = context;
    const apsp_matrix *m = s->m;
    size_t bad_i = SIZE_MAX, bad_j = 0;
    int32_t max_weight = 0;
    int negative = 0;
    for (size_t i = begin; i < end && bad_i == SIZE_MAX; i++) {
        const int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = 0; j < m->padded; j++) {
            int32_t c = row[j];
            if (!cell_ok(m, i, j, c) && bad_i == SIZE_MAX) {
                bad_i = i;
                bad_j = j;
            }
            if (!cell_ok(m, i, j, c) || i >= m->n || j >= m->n || c == APSP_INF)
                continue;
            negative |= c < 0;
            if ((c < 0 ? -c : c) > max_weight)
                max_weight = c < 0 ? -c : c;
        }
    }
    pthread_mutex_lock(&s->lock);
    if (bad_i < s->bad_i || (bad_i == s->bad_i && bad_j < s->bad_j)) {
        s->bad_i = bad_i;
        s->bad_j = bad_j;
    }
    if (max_weight > s->max_weight)
        s->max_weight = max_weight;
    s->negative |= negative;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

apsp_status matrix_check_shape(const apsp_matrix *m, apsp_error *error) {
    if (!m || !m->data || m->n == 0)
        return fail(error, APSP_ERR_USAGE, "the matrix is missing or has no vertices");
    if (m->padded < m->n || m->padded % APSP_MATRIX_ALIGN || m->stride < m->padded)
        return fail(error, APSP_ERR_USAGE,
                    "matrix of %zu vertices: padded = %zu must be a multiple of %d and at least "
                    "n, stride = %zu at least padded (apsp_matrix_create makes such matrices)",
                    m->n, m->padded, APSP_MATRIX_ALIGN, m->stride);
    return APSP_OK;
}

apsp_status matrix_check_cells(const apsp_matrix *m, int *negative, apsp_error *error) {
    matrix_scan s = {.m = m, .bad_i = SIZE_MAX};
    pthread_mutex_init(&s.lock, NULL);
    size_t bytes = m->padded * m->stride * sizeof(int32_t);
    parallel_slices(m->padded, bytes < PARALLEL_FILL_BYTES ? 1 : 0, scan_rows, &s);
    pthread_mutex_destroy(&s.lock);
    if (s.bad_i != SIZE_MAX)
        return fail(error, APSP_ERR_USAGE, "matrix cell (%zu, %zu) is %d: %s", s.bad_i, s.bad_j,
                    apsp_matrix_row(m, s.bad_i)[s.bad_j],
                    s.bad_i == s.bad_j                   ? "the diagonal must be 0"
                    : s.bad_i >= m->n || s.bad_j >= m->n ? "padding cells must be APSP_INF"
                                                         : "distances must lie in "
                                                           "(-APSP_INF, APSP_INF]");
    /* As the reader requires: no path of V - 1 edges may reach the unreachable marker, or its
     * negative (base/graph.h). */
    if (m->n > 1 && (uint64_t)s.max_weight * (m->n - 1) >= APSP_INF)
        return fail(error, APSP_ERR_USAGE,
                    "matrix: a weight of magnitude %d with V = %zu lets a path reach APSP_INF; "
                    "weights must stay within +-%d",
                    s.max_weight, m->n, (int32_t)((APSP_INF - 1) / (m->n - 1)));
    *negative = s.negative;
    return APSP_OK;
}

apsp_status matrix_check_cycles(const apsp_matrix *m, apsp_error *error) {
    for (size_t i = 0; i < m->n; i++)
        if (apsp_matrix_row(m, i)[i] < 0)
            return fail(error, APSP_ERR_NEGATIVE_CYCLE,
                        "the graph has a negative cycle: vertex %zu reaches itself by a path of "
                        "negative total weight, so shortest distances do not exist",
                        i);
    return APSP_OK;
}
