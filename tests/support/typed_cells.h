/* Cells of a matrix of any element type read and written as int32, for the benchmarks that
 * solve one integral graph in every type (tests/gpu/bench.c, tests/bench/bench_dtypes.c,
 * block_kernels.c). Both
 * include it by its relative path, so that tests/gpu's scripts build bench.c with gcc alone and
 * no -I for tests/. Unlike oracle.h, this uses the library's matrix (apsp.h). */
#ifndef APSP_TEST_TYPED_CELLS_H
#define APSP_TEST_TYPED_CELLS_H

#include "apsp.h"

#include <math.h>
#include <stdint.h>

/* Cell (i, j) of a matrix of any type as int32, unreachable as APSP_INF. */
static inline int32_t cell_at(const apsp_matrix *m, size_t i, size_t j) {
    const void *row = apsp_matrix_row_cells(m, i);
    switch (m->dtype) {
    case APSP_INT64: {
        int64_t c = ((const int64_t *)row)[j];
        return c == APSP_INF64 ? APSP_INF : (int32_t)c;
    }
    case APSP_FLOAT32: {
        float c = ((const float *)row)[j];
        return c == INFINITY ? APSP_INF : (int32_t)c;
    }
    case APSP_FLOAT64: {
        double c = ((const double *)row)[j];
        return c == INFINITY ? APSP_INF : (int32_t)c;
    }
    default:
        return ((const int32_t *)row)[j];
    }
}

/* Element `index` of an array of cells of type dtype set to the weight w in that type. */
static inline void set_typed(void *cells, apsp_dtype dtype, size_t index, int32_t w) {
    switch (dtype) {
    case APSP_INT64:
        ((int64_t *)cells)[index] = w;
        break;
    case APSP_FLOAT32:
        ((float *)cells)[index] = (float)w;
        break;
    case APSP_FLOAT64:
        ((double *)cells)[index] = w;
        break;
    default:
        ((int32_t *)cells)[index] = w;
    }
}

/* Cell (i, j) set to the weight w in the matrix's type, so that every type holds the same
 * graph. */
static inline void set_cell(apsp_matrix *m, size_t i, size_t j, int32_t w) {
    set_typed(apsp_matrix_row_cells(m, i), m->dtype, j, w);
}

#endif
