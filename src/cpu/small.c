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
#include "base/matrix.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Floyd-Warshall on n rows of `width` cells (a multiple of SMALL_LANES, the columns past n the
 * unreachable marker); k outer, as close_block, row k read from a copy so that the rows vectorise
 * (row k itself changes in step k only through d(k, k) < 0, a negative cycle refused anyway). The
 * columns past n never reach a graph's cell, and whole vectors with no remainder loop make a row of
 * a 30-vertex graph four AVX2 operations. A row whose d(i, k) is unreachable is skipped: every sum
 * through it is at least the marker (the negative form's floor, +inf's absorption), so it would
 * change nothing. */
#define CLOSE_SMALL(NAME, CELL, RELAX, MARKER)                                                     \
    CLONED_FOR_ISAS static void NAME(void *cells, size_t n, size_t width) {                        \
        CELL *c = cells;                                                                           \
        _Alignas(64) CELL ck[ROUND_DEPTH];                                                         \
        for (size_t k = 0; k < n; k++) {                                                           \
            memcpy(ck, c + k * width, width * sizeof(CELL));                                       \
            for (size_t i = 0; i < n; i++) {                                                       \
                CELL *restrict ci = c + i * width;                                                 \
                const CELL cik = ci[k];                                                            \
                if (cik == (MARKER))                                                               \
                    continue;                                                                      \
                for (size_t j = 0; j < width; j++) /* (no remainder: width is whole vectors) */    \
                    ci[j] = RELAX(ci[j], cik, ck[j]);                                              \
            }                                                                                      \
        }                                                                                          \
    }

/* Cells per row unit: 64 bytes of the narrowest int32 type, one AVX-512 vector (the int16
 * rows' 32 bytes, one AVX2 vector). */
enum { SMALL_LANES = 16 };

/* The int16 lanes' unreachable marker: two of them sum within int16, and no distance of a graph
 * taken to them reaches it. */
enum { INF16 = 16383 };

static inline int16_t add_min16(int16_t c, int16_t a, int16_t b) {
    const int16_t sum = (int16_t)(a + b);
    return c < sum ? c : sum;
}

CLOSE_SMALL(close_small_i32, int32_t, add_min32, APSP_INF)
CLOSE_SMALL(close_small_i32_negative, int32_t, relax_negative, APSP_INF)
CLOSE_SMALL(close_small_i64, int64_t, add_min64, APSP_INF64)
CLOSE_SMALL(close_small_i64_negative, int64_t, relax_negative64, APSP_INF64)
CLOSE_SMALL(close_small_f32, float, add_min_f32, INFINITY)
CLOSE_SMALL(close_small_f64, double, add_min_f64, INFINITY)
CLOSE_SMALL(close_small_i16, int16_t, add_min16, INF16)

/* An int32 graph of small distances through int16 lanes: its rows narrowed into `to` at pitch
 * `width` (APSP_INF to INF16, the columns past n INF16), closed, and widened back. */
static void solve_in_int16(apsp_matrix *m, int16_t *to, size_t width) {
    const size_t n = m->n;
    for (size_t i = 0; i < n; i++) { /* (loops without a test of j: vectorised) */
        const int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = 0; j < n; j++)
            to[i * width + j] = row[j] != APSP_INF ? (int16_t)row[j] : INF16;
        for (size_t j = n; j < width; j++)
            to[i * width + j] = INF16;
    }
    close_small_i16(to, n, width);
    for (size_t i = 0; i < n; i++) {
        int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = 0; j < n; j++)
            row[j] = to[i * width + j] == INF16 ? APSP_INF : to[i * width + j];
    }
}

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

typedef void (*close_small_fn)(void *cells, size_t n, size_t width);
typedef void (*square_small_fn)(void *cells, size_t n, size_t stride, void *scratch);

/* The graph's rows into `to` at pitch `width`, the columns past n the marker; or back. */
static void copy_rows(apsp_matrix *m, char *to, size_t width, int back) {
    const size_t cell = apsp_dtype_size(m->dtype), row = m->n * cell;
    _Alignas(8) unsigned char marker[sizeof(double)];
    matrix_fill_row(m->dtype, marker, 1, SIZE_MAX);
    for (size_t i = 0; i < m->n; i++) {
        char *at = to + i * width * cell, *cells = (char *)apsp_matrix_row_cells(m, i);
        if (back) {
            memcpy(cells, at, row);
            continue;
        }
        memcpy(at, cells, row);
        for (size_t j = m->n; j < width; j++)
            memcpy(at + j * cell, marker, cell);
    }
}

apsp_status cpu_solve_small(apsp_matrix *m, int negative, uint64_t most, apsp_error *error) {
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
    if (m->n == 0)
        return APSP_OK;
    /* The rows at a pitch of whole vectors, and for the rounded types the closed cells' copy. */
    const size_t width = (m->n + SMALL_LANES - 1) / SMALL_LANES * SMALL_LANES;
    const size_t cell = apsp_dtype_size(m->dtype), rows = m->n * width * cell;
    char *scratch = apsp_malloc(rows + (square[m->dtype] ? m->n * m->n * cell : 0));
    if (!scratch)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for a copy of %zu x %zu cells", m->n,
                    m->n);
    if (m->dtype == APSP_INT32 && !negative && most < INF16 / m->n) { /* (n - 1) most < INF16 */
        solve_in_int16(m, (int16_t *)(void *)scratch, width);
        free(scratch);
        return APSP_OK;
    }
    copy_rows(m, scratch, width, 0);
    close[m->dtype][negative != 0](scratch, m->n, width);
    copy_rows(m, scratch, width, 1);
    if (square[m->dtype])
        square[m->dtype](m->cells, m->n, m->stride, scratch + rows);
    free(scratch);
    return APSP_OK;
}
