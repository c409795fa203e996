/* The file formats, one row each of FORMATS in formats.c: name, direction, extensions, and the
 * reader or writer (one file per format). */
#ifndef APSP_FORMATS_H
#define APSP_FORMATS_H

#include "apsp.h"

/* The writers beside apsp_output_commit_hw3 (hw3.c); each frees the output, as commits do. */
apsp_status commit_npy(apsp_output *output, const apsp_matrix *matrix, apsp_error *error);
/* The .npy header of an n x n array of the type, preamble included, into out (256 bytes); its
 * length. */
size_t npy_header(size_t n, apsp_dtype dtype, char out[256]);
/* The same for a rows x columns array (distances from chosen sources). */
size_t npy_header_rows(size_t rows, size_t columns, apsp_dtype dtype, char out[256]);
apsp_status commit_text(apsp_output *output, const apsp_matrix *matrix, apsp_error *error);

/* The most characters of one cell of the text output, its separator included. */
enum { TEXT_CELL_MAX = 32 /* "-1.2345678901234567e-308 " */ };
/* One row of the type as a line of the text output ("inf" for the type's unreachable marker, a
 * newline at the end) into dst, which has room for n * TEXT_CELL_MAX; returns its length. */
size_t text_row(char *dst, const void *row, apsp_dtype dtype, size_t n);

#endif
