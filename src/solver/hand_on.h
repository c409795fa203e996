/* Rows handed on to a solve's caller (solver.c): a host matrix's, in batches of whole rows, and
 * an apsp_rows_fn's int32 rows as an apsp_cells_fn's and back, for the paths that serve both. */
#ifndef APSP_SOLVER_HAND_ON_H
#define APSP_SOLVER_HAND_ON_H

#include "apsp.h"

/* Rows from a host matrix to the caller, in batches of whole rows. */
static inline apsp_status hand_on_matrix(const apsp_matrix *m, apsp_cells_fn cells, void *context,
                                         apsp_error *error) {
    enum { BATCH_ROWS = 256 };
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < m->n && status == APSP_OK; i += BATCH_ROWS) {
        size_t count = m->n - i < BATCH_ROWS ? m->n - i : BATCH_ROWS;
        status = cells(context, i, count, apsp_matrix_row_cells(m, i), m->stride, error);
    }
    return status;
}

/* An apsp_rows_fn's int32 rows to an apsp_cells_fn, and back. */
typedef struct rows_as_cells {
    apsp_rows_fn rows;
    apsp_cells_fn cells;
    void *context;
} rows_as_cells;

static inline apsp_status cells_to_rows(void *context, size_t first_row, size_t count,
                                        const void *rows, size_t pitch, apsp_error *error) {
    const rows_as_cells *r = context;
    return r->rows(r->context, first_row, count, rows, pitch, error);
}

static inline apsp_status rows_to_cells(void *context, size_t first_row, size_t count,
                                        const int32_t *rows, size_t pitch, apsp_error *error) {
    const rows_as_cells *r = context;
    return r->cells(r->context, first_row, count, rows, pitch, error);
}

#endif
