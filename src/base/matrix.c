/* The padded host distance matrix. */
#include "apsp.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/parallel.h"
#include "base/util.h"

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

apsp_status apsp_matrix_create(size_t n, apsp_matrix **out, apsp_error *error) {
    *out = NULL;
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
