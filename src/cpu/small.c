/* The pthread backend's small solve (kernels.h: cpu_solve_small): a graph of at most
 * ROUND_DEPTH vertices in place on the calling thread, over its n x n cells alone. The blocked
 * solve of such a graph is one round, and the round's steps reduce to this: the pivot block
 * closed by plain Floyd-Warshall (the padding, all APSP_INF but the diagonal, changes no cell
 * of the graph) and, where sums are rounded, the pivot rows' pass R = min(R, P (+) R) with R = P
 * (backend.c: pivot_rows_item). Each cell sees the same sums in the same order, so the result is
 * the blocked solve's bit for bit, without a 128-vertex block, a pool wake-up or a pivot copy of
 * the padding. */
#include "cpu/kernels.h"
#include "cpu/relax.h"
#include "base/error.h"
#include "base/fault.h"

#include <stdlib.h>
#include <string.h>

/* Floyd-Warshall on the n x n cells of row pitch `stride`; k outer, as close_block. */
#define CLOSE_SMALL(NAME, CELL, RELAX)                                                             \
    CLONED_FOR_ISAS static void NAME(void *cells, size_t n, size_t stride) {                       \
        CELL *c = cells;                                                                           \
        for (size_t k = 0; k < n; k++) {                                                           \
            const CELL *ck = c + k * stride;                                                       \
            for (size_t i = 0; i < n; i++) {                                                       \
                CELL *ci = c + i * stride;                                                         \
                const CELL cik = ci[k];                                                            \
                for (size_t j = 0; j < n; j++)                                                     \
                    ci[j] = RELAX(ci[j], cik, ck[j]);                                              \
            }                                                                                      \
        }                                                                                          \
    }

CLOSE_SMALL(close_small_i32, int32_t, add_min32)
CLOSE_SMALL(close_small_i32_negative, int32_t, relax_negative)
CLOSE_SMALL(close_small_i64, int64_t, add_min64)
CLOSE_SMALL(close_small_i64_negative, int64_t, relax_negative64)
CLOSE_SMALL(close_small_f32, float, add_min_f32)
CLOSE_SMALL(close_small_f64, double, add_min_f64)

/* The pivot rows' pass of a one-block solve: C = min(C, P (+) P), P the closed cells as they
 * were (a copy: C is overwritten while P is read), k ascending from C's own value, as the block
 * product's accumulator runs. */
#define SQUARE_SMALL(NAME, CELL, RELAX)                                                            \
    CLONED_FOR_ISAS static void NAME(void *cells, size_t n, size_t stride, void *scratch) {        \
        CELL *c = cells, *p = scratch;                                                             \
        for (size_t i = 0; i < n; i++)                                                             \
            memcpy(p + i * n, c + i * stride, n * sizeof(CELL));                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            CELL *ci = c + i * stride;                                                             \
            for (size_t k = 0; k < n; k++) {                                                       \
                const CELL pik = p[i * n + k];                                                     \
                for (size_t j = 0; j < n; j++)                                                     \
                    ci[j] = RELAX(ci[j], pik, p[k * n + j]);                                       \
            }                                                                                      \
        }                                                                                          \
    }

SQUARE_SMALL(square_small_f32, float, add_min_f32)
SQUARE_SMALL(square_small_f64, double, add_min_f64)

typedef void (*close_small_fn)(void *cells, size_t n, size_t stride);
typedef void (*square_small_fn)(void *cells, size_t n, size_t stride, void *scratch);

apsp_status cpu_solve_small(apsp_matrix *m, int negative, apsp_error *error) {
    static const close_small_fn close[][2] = {
        [APSP_INT32] = {close_small_i32, close_small_i32_negative},
        [APSP_INT64] = {close_small_i64, close_small_i64_negative},
        [APSP_FLOAT32] = {close_small_f32, close_small_f32},
        [APSP_FLOAT64] = {close_small_f64, close_small_f64},
    };
    static const square_small_fn square[] = {
        [APSP_FLOAT32] = square_small_f32,
        [APSP_FLOAT64] = square_small_f64,
    };
    if (m->n > ROUND_DEPTH || (unsigned)m->dtype > APSP_FLOAT64)
        return fail(error, APSP_ERR_INTERNAL, "a small solve of %zu vertices (at most %d)", m->n,
                    ROUND_DEPTH);
    void *scratch = NULL; /* the closed cells, for the rounded types' pass */
    if (square[m->dtype] && !(scratch = apsp_malloc(m->n * m->n * apsp_dtype_size(m->dtype))))
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for a copy of %zu x %zu cells", m->n,
                    m->n);
    close[m->dtype][negative != 0](m->cells, m->n, m->stride);
    if (scratch)
        square[m->dtype](m->cells, m->n, m->stride, scratch);
    free(scratch);
    return APSP_OK;
}
