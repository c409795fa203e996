/* The body of the binary outputs (hw3, npy): the matrix's n x n cells, little-endian,
 * row-major, written by several threads at their offsets into a regular file, or in order into
 * a stream. */
#ifndef APSP_ROWS_H
#define APSP_ROWS_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

/* Writes `header` (header_bytes of it, possibly none) and then the cells as `file_type` (the
 * matrix's type, or int32 for an int64 matrix whose distances the caller found to fit: the
 * unreachable marker becomes APSP_INF), syncs and puts the output into place; frees the output
 * either way. */
apsp_status commit_rows(apsp_output *output, const apsp_matrix *matrix, apsp_dtype file_type,
                        const void *header, size_t header_bytes, apsp_error *error);

/* Writes `size` bytes as the whole output (a program binary), syncs and puts it into place;
 * frees the output either way. */
apsp_status commit_bytes(apsp_output *output, const void *bytes, size_t size, apsp_error *error);

/* All of buf at the offset, through short writes and EINTR. Returns 0 or an errno value. */
int write_at(int fd, const unsigned char *buf, size_t size, uint64_t offset);

#endif
