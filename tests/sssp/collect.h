/* The rows a solve over chosen sources hands out, gathered in order (test_sssp.c,
 * test_sssp_typed.c): an apsp_cells_fn for distances of any type, an apsp_rows_fn for int32. */
#ifndef APSP_TESTS_SSSP_COLLECT_H
#define APSP_TESTS_SSSP_COLLECT_H

#include "apsp.h"

#include <stdio.h>
#include <string.h>

typedef struct collected {
    size_t vertices, rows, cell_bytes;
    void *cells; /* rows x vertices, as handed out */
} collected;

static apsp_status collect(void *context, size_t first, size_t count, const void *rows,
                           size_t pitch, apsp_error *error) {
    collected *c = context;
    if (first != c->rows) {
        snprintf(error->message, sizeof error->message, "rows from %zu, expected %zu", first,
                 c->rows);
        return error->status = APSP_ERR_INTERNAL;
    }
    size_t row_bytes = c->vertices * c->cell_bytes;
    for (size_t r = 0; r < count; r++)
        memcpy((char *)c->cells + (first + r) * row_bytes,
               (const char *)rows + r * pitch * c->cell_bytes, row_bytes);
    c->rows += count;
    return APSP_OK;
}

static apsp_status collect_int32(void *context, size_t first, size_t count, const int32_t *rows,
                                 size_t pitch, apsp_error *error) {
    return collect(context, first, count, rows, pitch, error);
}

#endif
