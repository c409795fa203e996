/* The body of the binary outputs (hw3, npy): the matrix's n x n cells, little-endian,
 * row-major, written by several threads at their offsets into a regular file, or in order into
 * a stream. */
#ifndef APSP_ROWS_H
#define APSP_ROWS_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

enum {
    ROWS_PER_CALL = 64, /* within every system's IOV_MAX */
    /* A device's batches of rows are just under 64 MiB (opencl/graph_io.c): at 64 MiB every
     * one of them was written on one thread, 2.8 GB/s against the floor's 4.4 at V = 60000. */
    PARALLEL_WRITE_BYTES = 8 << 20,
};

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

/* Row `row` of n cells of type `from` into dst as cells of type `to`, in the host's order: the
 * same type copied, int64 narrowed to int32 (the unreachable marker becoming APSP_INF; the
 * caller checked that every finite distance fits), int32 widened to float32 or float64
 * (APSP_INF becoming +inf; each value exact, as the whole-number rule has it). rows_cells.c. */
void rows_store_cells(unsigned char *dst, const void *row, size_t n, apsp_dtype from,
                      apsp_dtype to);
/* The same as little-endian cells, whatever the host's order (the files' order). */
void rows_store_cells_le(unsigned char *dst, const void *row, size_t n, apsp_dtype from,
                         apsp_dtype to);
/* Whether the host stores numbers little-endian, as the files do: their rows then go as they are.
 */
int rows_host_little_endian(void);

/* `count` rows of `batch` (of file_type, or int32 widened to it) at byte `base` of a file that
 * output_mappable allows, little-endian, through a shared mapping, copied on the output's
 * threads: into output_prepare's mapping of the whole file where there is one, else a mapping
 * of their span. Returns 0, an errno value (EFAULT: the file was truncated under it), or -1
 * where the file cannot be mapped or copied into, for pwrite to take over (rows_mapped.c). */
int rows_write_mapped(apsp_output *output, uint64_t base, const apsp_matrix *batch,
                      apsp_dtype file_type, size_t count);

#endif
