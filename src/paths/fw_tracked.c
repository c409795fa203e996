/* Floyd-Warshall with SciPy's predecessors (fw_tracked.h). One instance per element type; the
 * relaxation is the pthread kernels' (cpu/relax.h) written out with its test, since the branch
 * that keeps a predecessor is what the add-min kernels leave out. */
#include "paths/fw_tracked.h"

#include <math.h>
#include <string.h>

/* Each edge's tail, as SciPy's initial predecessor matrix holds it. */
#define TRACKED_START(CELL, MARKER)                                                                \
    for (size_t i = 0; i < n; i++)                                                                 \
        for (size_t j = 0; j < n; j++)                                                             \
            pred[i * stride + j] =                                                                 \
                i != j && c[i * stride + j] != (MARKER) ? (int32_t)i : APSP_NO_PREDECESSOR;

/* An integer type: a sum with an unreachable term never lowers a cell (the negative form's
 * floor), and a finite one stays above -marker, so a negative cycle cannot overflow. */
#define TRACKED_INTEGER(NAME, CELL, MARKER)                                                        \
    static void NAME(void *cells, size_t n, size_t stride, int32_t *pred) {                        \
        CELL *c = cells;                                                                           \
        TRACKED_START(CELL, MARKER)                                                                \
        for (size_t k = 0; k < n; k++) {                                                           \
            const CELL *ck = c + k * stride;                                                       \
            const int32_t *pk = pred + k * stride;                                                 \
            for (size_t i = 0; i < n; i++) {                                                       \
                CELL *ci = c + i * stride;                                                         \
                const CELL cik = ci[k];                                                            \
                if (cik == (MARKER))                                                               \
                    continue;                                                                      \
                int32_t *pi = pred + i * stride;                                                   \
                for (size_t j = 0; j < n; j++) {                                                   \
                    CELL sum = ck[j] == (MARKER) ? (MARKER) : cik + ck[j];                         \
                    sum = sum < -(MARKER) ? -(MARKER) : sum;                                       \
                    if (sum < ci[j]) {                                                             \
                        ci[j] = sum;                                                               \
                        pi[j] = pk[j];                                                             \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

TRACKED_INTEGER(tracked_i32, int32_t, APSP_INF)
TRACKED_INTEGER(tracked_i64, int64_t, APSP_INF64)

/* A floating-point type: +inf absorbs every sum. The closing pass over copies of the closed
 * cells and their predecessors (D and Q) is the small solve's, where rounding may lower a cell
 * once more. */
#define TRACKED_FLOAT(NAME, CELL)                                                                  \
    static void NAME(void *cells, size_t n, size_t stride, int32_t *pred, void *scratch) {         \
        CELL *c = cells;                                                                           \
        TRACKED_START(CELL, (CELL)INFINITY)                                                        \
        for (size_t k = 0; k < n; k++) {                                                           \
            const CELL *ck = c + k * stride;                                                       \
            const int32_t *pk = pred + k * stride;                                                 \
            for (size_t i = 0; i < n; i++) {                                                       \
                CELL *ci = c + i * stride;                                                         \
                const CELL cik = ci[k];                                                            \
                if (isinf(cik))                                                                    \
                    continue;                                                                      \
                int32_t *pi = pred + i * stride;                                                   \
                for (size_t j = 0; j < n; j++) {                                                   \
                    const CELL sum = cik + ck[j];                                                  \
                    if (sum < ci[j]) {                                                             \
                        ci[j] = sum;                                                               \
                        pi[j] = pk[j];                                                             \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        CELL *d = scratch;                                                                         \
        int32_t *q = (int32_t *)(void *)(d + n * n);                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            memcpy(d + i * n, c + i * stride, n * sizeof(CELL));                                   \
            memcpy(q + i * n, pred + i * stride, n * sizeof(int32_t));                             \
        }                                                                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            for (size_t k = 0; k < n; k++)                                                         \
                for (size_t j = 0; j < n; j++) {                                                   \
                    const CELL sum = d[i * n + k] + d[k * n + j];                                  \
                    if (sum < c[i * stride + j]) {                                                 \
                        c[i * stride + j] = sum;                                                   \
                        pred[i * stride + j] = q[k * n + j];                                       \
                    }                                                                              \
                }                                                                                  \
    }

TRACKED_FLOAT(tracked_f32, float)
TRACKED_FLOAT(tracked_f64, double)

size_t fw_tracked_scratch(apsp_dtype dtype, size_t n) {
    return dtype == APSP_FLOAT32 || dtype == APSP_FLOAT64
               ? n * n * (apsp_dtype_size(dtype) + sizeof(int32_t))
               : 0;
}

void fw_tracked(apsp_dtype dtype, void *cells, size_t n, size_t stride, int32_t *pred,
                void *scratch) {
    switch (dtype) {
    case APSP_INT32:
        tracked_i32(cells, n, stride, pred);
        break;
    case APSP_INT64:
        tracked_i64(cells, n, stride, pred);
        break;
    case APSP_FLOAT32:
        tracked_f32(cells, n, stride, pred, scratch);
        break;
    case APSP_FLOAT64:
        tracked_f64(cells, n, stride, pred, scratch);
        break;
    }
}
