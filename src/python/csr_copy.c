/* Solver.solve_csr's copy (core.h, csr_copy): a compressed sparse graph into the padded matrix's
 * n x n cells in SciPy's sparse reading, on the calling thread: the graphs it is for are small
 * (a pass over their entries costs less than NumPy's calls to build a dense matrix), and a
 * large one's solve dwarfs it. */
#include "core.h"

#include <math.h>

/* Entry k of an int32 or int64 index array. */
static inline int64_t index_at(const void *indices, apsp_dtype type, size_t k) {
    return type == APSP_INT32 ? ((const int32_t *)indices)[k] : ((const int64_t *)indices)[k];
}

/* Row i's entries [begin, end) of the compressed arrays, when they are in range. */
static int row_span(const csr_copy *g, size_t i, size_t *begin, size_t *end) {
    const int64_t first = index_at(g->indptr, g->indptr_type, i);
    const int64_t last = index_at(g->indptr, g->indptr_type, i + 1);
    if (first < 0 || last < first || (uint64_t)last > g->entries)
        return -1;
    *begin = (size_t)first;
    *end = (size_t)last;
    return 0;
}

/* The n x n cells edgeless (the marker, 0 on the diagonal), then each entry's weight (1 when
 * unweighted) kept where it is less than the cell's: repeated entries keep the least, as SciPy;
 * self-loops and, for floats, NaN and +-inf are no edge; directed 0: both ways. */
#define CSR_FILL(NAME, K, S, NO_EDGE, MARKER)                                                      \
    static int NAME(const csr_copy *g, apsp_matrix *m) {                                           \
        const size_t n = g->n;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            K *row = apsp_matrix_row_cells(m, i);                                                  \
            for (size_t j = 0; j < n; j++)                                                         \
                row[j] = (MARKER);                                                                 \
            row[i] = 0;                                                                            \
        }                                                                                          \
        const S *data = g->data;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            size_t begin, end;                                                                     \
            if (row_span(g, i, &begin, &end) != 0)                                                 \
                return -1;                                                                         \
            for (size_t k = begin; k < end; k++) {                                                 \
                const int64_t j = index_at(g->indices, g->indices_type, k);                        \
                const S v = data[k];                                                               \
                if (j < 0 || (uint64_t)j >= n)                                                     \
                    return -1;                                                                     \
                if ((size_t)j == i || (NO_EDGE))                                                   \
                    continue;                                                                      \
                const K w = g->unweighted ? (K)1 : (K)v;                                           \
                const size_t r = g->columns ? (size_t)j : i, c = g->columns ? i : (size_t)j;       \
                K *cell = (K *)apsp_matrix_row_cells(m, r) + c;                                    \
                *cell = w < *cell ? w : *cell;                                                     \
                if (!g->directed) {                                                                \
                    K *mirror = (K *)apsp_matrix_row_cells(m, c) + r;                              \
                    *mirror = w < *mirror ? w : *mirror;                                           \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        return 0;                                                                                  \
    }
CSR_FILL(fill_f32, float, float, !isfinite(v), INFINITY)
CSR_FILL(fill_f64, double, double, !isfinite(v), INFINITY)
CSR_FILL(fill_i32_i32, int32_t, int32_t, 0, APSP_INF)
CSR_FILL(fill_i64_i32, int32_t, int64_t, 0, APSP_INF)
CSR_FILL(fill_i32_i64, int64_t, int32_t, 0, APSP_INF64)
CSR_FILL(fill_i64_i64, int64_t, int64_t, 0, APSP_INF64)
#undef CSR_FILL

int csr_copy_in(const csr_copy *g, apsp_matrix *m) {
    switch (m->dtype * 4 + g->from) {
    case APSP_FLOAT32 * 4 + APSP_FLOAT32:
        return fill_f32(g, m);
    case APSP_FLOAT64 * 4 + APSP_FLOAT64:
        return fill_f64(g, m);
    case APSP_INT32 * 4 + APSP_INT32:
        return fill_i32_i32(g, m);
    case APSP_INT32 * 4 + APSP_INT64:
        return fill_i64_i32(g, m);
    case APSP_INT64 * 4 + APSP_INT32:
        return fill_i32_i64(g, m);
    case APSP_INT64 * 4 + APSP_INT64:
        return fill_i64_i64(g, m);
    }
    return -1;
}
