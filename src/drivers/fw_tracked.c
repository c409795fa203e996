/* Floyd-Warshall with SciPy's predecessors (fw_tracked.h). One instance per element type; the
 * relaxation is the pthread kernels' (cpu/relax.h) written out with its test, since the select
 * that keeps a predecessor is what the add-min kernels leave out. Row k (cells and predecessors)
 * is read from a copy, so that the rows vectorise: it changes in step k only through
 * d(k, k) < 0, a negative cycle, refused anyway. */
#include "drivers/fw_tracked.h"
#include "base/util.h"
#include "base/element_types.h"

#include <math.h>
#include <string.h>

/* Each edge's tail, as SciPy's initial predecessor matrix holds it. */
#define TRACKED_START(CELL, MARKER)                                                                \
    for (size_t i = 0; i < n; i++)                                                                 \
        for (size_t j = 0; j < n; j++)                                                             \
            pred[i * stride + j] =                                                                 \
                i != j && c[i * stride + j] != (MARKER) ? (int32_t)i : APSP_NO_PREDECESSOR;

/* One row i of step k: its own function so that GCC sees the rows apart (restrict) and
 * vectorises the selects. An integer type's sum with an unreachable term never lowers a cell
 * (the negative form's floor), and a finite one stays above -marker, so that a negative cycle
 * cannot overflow; a floating-point type's +inf absorbs every sum. */
#define ROW_INTEGER(NAME, CELL, MARKER)                                                            \
    CLONED_FOR_ISAS static void NAME(CELL *restrict ci, int32_t *restrict pi,                      \
                                     const CELL *restrict ck, const int32_t *restrict pk,          \
                                     CELL cik, size_t n) {                                         \
        for (size_t j = 0; j < n; j++) {                                                           \
            CELL sum = ck[j] == (MARKER) ? (MARKER) : cik + ck[j];                                 \
            sum = sum < -(MARKER) ? -(MARKER) : sum;                                               \
            const int lower = sum < ci[j];                                                         \
            ci[j] = lower ? sum : ci[j];                                                           \
            pi[j] = lower ? pk[j] : pi[j];                                                         \
        }                                                                                          \
    }

#define ROW_FLOAT(NAME, CELL)                                                                      \
    CLONED_FOR_ISAS static void NAME(CELL *restrict ci, int32_t *restrict pi,                      \
                                     const CELL *restrict ck, const int32_t *restrict pk,          \
                                     CELL cik, size_t n) {                                         \
        for (size_t j = 0; j < n; j++) {                                                           \
            const CELL sum = cik + ck[j];                                                          \
            const int lower = sum < ci[j];                                                         \
            ci[j] = lower ? sum : ci[j];                                                           \
            pi[j] = lower ? pk[j] : pi[j];                                                         \
        }                                                                                          \
    }

ROW_INTEGER(row_i32, int32_t, APSP_INF)
ROW_INTEGER(row_i64, int64_t, APSP_INF64)
ROW_FLOAT(row_f32, float)
ROW_FLOAT(row_f64, double)

/* Steps k over rows i, row k (cells and predecessors) from copies in scratch, a row with d(i, k)
 * unreachable skipped (SciPy's test; every sum through it is at least the marker). */
#define TRACKED_STEPS(CELL, ROW, UNREACHABLE)                                                      \
    CELL *c = cells, *ck = scratch;                                                                \
    int32_t *pk = (int32_t *)(void *)(ck + n);                                                     \
    for (size_t k = 0; k < n; k++) {                                                               \
        memcpy(ck, c + k * stride, n * sizeof(CELL));                                              \
        memcpy(pk, pred + k * stride, n * sizeof(int32_t));                                        \
        for (size_t i = 0; i < n; i++)                                                             \
            if (!(UNREACHABLE(c[i * stride + k])))                                                 \
                ROW(c + i * stride, pred + i * stride, ck, pk, c[i * stride + k], n);              \
    }

#define IS_INF32(x) ((x) == APSP_INF)
#define IS_INF64(x) ((x) == APSP_INF64)

#define TRACKED_INTEGER(NAME, CELL, MARKER, ROW, UNREACHABLE)                                      \
    static void NAME(void *cells, size_t n, size_t stride, int32_t *pred, void *scratch) {         \
        {                                                                                          \
            const CELL *c = cells;                                                                 \
            TRACKED_START(CELL, MARKER)                                                            \
        }                                                                                          \
        TRACKED_STEPS(CELL, ROW, UNREACHABLE)                                                      \
    }

TRACKED_INTEGER(tracked_i32, int32_t, APSP_INF, row_i32, IS_INF32)
TRACKED_INTEGER(tracked_i64, int64_t, APSP_INF64, row_i64, IS_INF64)

/* A floating-point type: +inf absorbs every sum. The closing pass over copies of the closed
 * cells and their predecessors (D and Q) is the small solve's, where rounding may lower a cell
 * once more. */
#define TRACKED_FLOAT(NAME, CELL, ROW)                                                             \
    static void NAME(void *cells, size_t n, size_t stride, int32_t *pred, void *scratch) {         \
        {                                                                                          \
            const CELL *c = cells;                                                                 \
            TRACKED_START(CELL, (CELL)INFINITY)                                                    \
        }                                                                                          \
        TRACKED_STEPS(CELL, ROW, isinf)                                                            \
        CELL *d = (CELL *)(void *)(pk + n + (n & 1)); /* (8-byte cells stay aligned) */            \
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

TRACKED_FLOAT(tracked_f32, float, row_f32)
TRACKED_FLOAT(tracked_f64, double, row_f64)

size_t fw_tracked_scratch(apsp_dtype dtype, size_t n) {
    const size_t cell = apsp_dtype_size(dtype), row = n * (cell + sizeof(int32_t)) + 8;
    return element_is_real(dtype) ? row + n * n * (cell + sizeof(int32_t)) : row;
}

void fw_tracked(apsp_dtype dtype, void *cells, size_t n, size_t stride, int32_t *pred,
                void *scratch) {
    switch (dtype) {
    case APSP_INT32:
        tracked_i32(cells, n, stride, pred, scratch);
        break;
    case APSP_INT64:
        tracked_i64(cells, n, stride, pred, scratch);
        break;
    case APSP_FLOAT32:
        tracked_f32(cells, n, stride, pred, scratch);
        break;
    case APSP_FLOAT64:
        tracked_f64(cells, n, stride, pred, scratch);
        break;
    }
}
