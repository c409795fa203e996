/* A row's cells as the file's type (rows.h: rows_store_cells, rows_store_cells_le): copied,
 * narrowed (int64 distances bound for hw3's int32) or widened (the int32 rows of whole float
 * weights bound for a float .npy). */
#include "formats/rows.h"

#include <math.h>
#include <string.h>

int rows_host_little_endian(void) {
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 1;
}

/* An int32 distance as a float one: the unreachable marker +inf, every other value exact (as the
 * whole-number rule has them; float32 rounds as through float64). */
static double widened(int32_t d) {
    return d == APSP_INF ? (double)INFINITY : (double)d;
}

/* Cell j of a row of `from` as the bits of a cell of `to`, one of rows_store_cells' pairs. */
static uint64_t cell_bits(const void *row, size_t j, apsp_dtype from, apsp_dtype to) {
    uint64_t bits = 0;
    if (from == APSP_INT64 && to == APSP_INT32) {
        int64_t d = ((const int64_t *)row)[j];
        return (uint32_t)(d >= APSP_INF64 ? APSP_INF : (int32_t)d);
    }
    if (from == APSP_INT32 && to == APSP_FLOAT32) {
        const float x = (float)widened(((const int32_t *)row)[j]);
        uint32_t narrow;
        memcpy(&narrow, &x, 4);
        return narrow;
    }
    if (from == APSP_INT32 && to == APSP_FLOAT64) {
        const double x = widened(((const int32_t *)row)[j]);
        memcpy(&bits, &x, 8);
        return bits;
    }
    if (apsp_dtype_size(to) == 4) {
        uint32_t narrow;
        memcpy(&narrow, (const unsigned char *)row + j * 4, 4);
        return narrow;
    }
    memcpy(&bits, (const unsigned char *)row + j * 8, 8);
    return bits;
}

void rows_store_cells(unsigned char *dst, const void *row, size_t n, apsp_dtype from,
                      apsp_dtype to) {
    const size_t size = apsp_dtype_size(to);
    if (from == to) {
        memcpy(dst, row, n * size);
        return;
    }
    const int32_t *narrow = row;
    if (from == APSP_INT32 && to == APSP_FLOAT64) { /* (loops of their own: vectorised) */
        for (size_t j = 0; j < n; j++) {
            const double x = widened(narrow[j]);
            memcpy(dst + j * 8, &x, 8);
        }
        return;
    }
    if (from == APSP_INT32 && to == APSP_FLOAT32) {
        for (size_t j = 0; j < n; j++) {
            const float x = (float)widened(narrow[j]);
            memcpy(dst + j * 4, &x, 4);
        }
        return;
    }
    for (size_t j = 0; j < n; j++) {
        const uint64_t bits = cell_bits(row, j, from, to);
        const uint32_t low = (uint32_t)bits;
        memcpy(dst + j * size, size == 4 ? (const void *)&low : (const void *)&bits, size);
    }
}

void rows_store_cells_le(unsigned char *dst, const void *row, size_t n, apsp_dtype from,
                         apsp_dtype to) {
    if (rows_host_little_endian()) {
        rows_store_cells(dst, row, n, from, to);
        return;
    }
    const size_t size = apsp_dtype_size(to);
    for (size_t j = 0; j < n; j++, dst += size) {
        const uint64_t v = cell_bits(row, j, from, to);
        for (size_t b = 0; b < size; b++)
            dst[b] = (unsigned char)(v >> (8 * b));
    }
}
