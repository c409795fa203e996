/* The NumPy output (.npy), format version 1.0 as numpy.lib.format writes it: the magic
 * "\x93NUMPY", version 1 0, a little-endian uint16 header length, then a Python dict literal
 * {'descr': '<i4', 'fortran_order': False, 'shape': (V, V), } padded with spaces and a final
 * newline so that the data starts at a multiple of 64 bytes (NumPy's own alignment, which lets
 * numpy.load(..., mmap_mode='r') map it). The descr is the matrix's type: '<i4' (the hw3
 * output's bytes), '<i8', '<f4' or '<f8'. */
#include "base/error.h"
#include "formats/formats.h"
#include "formats/rows.h"

#include <stdio.h>
#include <string.h>

enum { NPY_ALIGN = 64, NPY_PREAMBLE = 10, NPY_HEADER_MAX = 256 };

/* NumPy's name of the type, little-endian. */
static const char *npy_descr(apsp_dtype dtype) {
    switch (dtype) {
    case APSP_INT32:
        break;
    case APSP_INT64:
        return "<i8";
    case APSP_FLOAT32:
        return "<f4";
    case APSP_FLOAT64:
        return "<f8";
    }
    return "<i4";
}

/* The whole header, preamble included; returns its length (a multiple of NPY_ALIGN). */
size_t npy_header(size_t n, apsp_dtype dtype, char out[NPY_HEADER_MAX]) {
    return npy_header_rows(n, n, dtype, out);
}

size_t npy_header_rows(size_t rows, size_t columns, apsp_dtype dtype, char out[NPY_HEADER_MAX]) {
    char dict[128];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }",
                       npy_descr(dtype), rows, columns);
    size_t total = NPY_PREAMBLE + (size_t)len + 1; /* + the newline */
    total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    size_t header_len = total - NPY_PREAMBLE;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(header_len & 0xff);
    out[9] = (char)(header_len >> 8);
    memset(out + NPY_PREAMBLE, ' ', header_len);
    memcpy(out + NPY_PREAMBLE, dict, (size_t)len);
    out[total - 1] = '\n';
    return total;
}

apsp_status commit_npy(apsp_output *output, const apsp_matrix *matrix, apsp_error *error) {
    char header[NPY_HEADER_MAX];
    size_t bytes = npy_header(matrix->n, matrix->dtype, header);
    return commit_rows(output, matrix, matrix->dtype, header, bytes, error);
}
