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
apsp_status commit_text(apsp_output *output, const apsp_matrix *matrix, apsp_error *error);

#endif
