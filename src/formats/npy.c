/* The NumPy output (.npy), format version 1.0 as numpy.lib.format writes it: the magic
 * "\x93NUMPY", version 1 0, a little-endian uint16 header length, then a Python dict literal
 * {'descr': '<i4', 'fortran_order': False, 'shape': (V, V), } padded with spaces and a final
 * newline so that the data starts at a multiple of 64 bytes (NumPy's own alignment, which lets
 * numpy.load(..., mmap_mode='r') map it). The data are the hw3 output's bytes. */
#include "base/error.h"
#include "formats/formats.h"
#include "formats/rows.h"

#include <stdio.h>
#include <string.h>

enum { NPY_ALIGN = 64, NPY_PREAMBLE = 10, NPY_HEADER_MAX = 256 };

/* The whole header, preamble included; returns its length (a multiple of NPY_ALIGN). */
size_t npy_header(size_t n, char out[NPY_HEADER_MAX]) {
    char dict[128];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '<i4', 'fortran_order': False, 'shape': (%zu, %zu), }", n, n);
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
    size_t bytes = npy_header(matrix->n, header);
    return commit_int32_rows(output, matrix, header, bytes, error);
}
