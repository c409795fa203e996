/* Rows of distances written as text in order, for apsp_row_writer (rows.c): the text output's
 * lines, or the long table of csv and tsv ("source,target,distance" a pair, labels kept); and
 * --limit, which leaves out (long table) or makes unreachable (matrix formats) every distance
 * above it. */
#ifndef APSP_TEXT_ROWS_H
#define APSP_TEXT_ROWS_H

#include "apsp.h"

#include <stdint.h>

typedef struct text_rows text_rows;

/* delimiter ',' or '\t' for a long table; 0 for the text output's lines (or a binary output
 * that only takes a limit). NULL: no memory. */
text_rows *text_rows_create(char delimiter);
void text_rows_destroy(text_rows *t); /* accepts NULL */
/* What apsp_row_writer_set_table sets: labels (V, kept by the caller) or NULL for numbers,
 * row_vertices (`rows` ids, copied) or NULL for row i = vertex i, and the limit (limited 0:
 * none). */
apsp_status text_rows_set(text_rows *t, const char *const *labels, const int32_t *row_vertices,
                          size_t rows, int limited, double limit, apsp_error *error);
int text_rows_limited(const text_rows *t);

/* count rows of `vertices` cells of dtype (row r at rows + r * pitch cells; the first is row
 * first_row) as text at *offset of the output (fd >= 0) or to its stream; *offset moves on.
 * Returns 0 or an errno value. */
int text_rows_put(text_rows *t, apsp_output *output, size_t first_row, size_t count,
                  const void *rows, size_t pitch, apsp_dtype dtype, size_t vertices,
                  uint64_t *offset);

/* The rows with every distance above the limit made the type's unreachable marker, in a copy
 * (held until the next call): what a matrix format writes under --limit. NULL: no memory. */
const void *text_rows_cut(text_rows *t, size_t count, const void *rows, size_t pitch,
                          apsp_dtype dtype);

#endif
