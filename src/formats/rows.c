/* Writing the matrix's V x V int32 cells, little-endian and row-major, after an optional header:
 * the body of the hw3 and npy outputs (rows.h). */
#include "formats/rows.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/parallel.h"
#include "formats/output_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static int host_is_little_endian(void) {
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 1;
}

/* The output's rows [begin, end), packed little-endian into a buffer of whole rows and written
 * to their place in the file: by pwrite at their offset, so that several threads can write one
 * file, or in order to a stream (a pipe or a device). */
typedef struct row_writer {
    uint64_t base; /* the byte offset of row 0 */
    const apsp_matrix *matrix;
    int fd;       /* a regular file, written at offsets; -1: use stream */
    FILE *stream; /* written in order */
} row_writer;

enum {
    WRITE_CHUNK_BYTES = 4 << 20,
    ROWS_PER_CALL = 64, /* within every system's IOV_MAX */
    PARALLEL_WRITE_BYTES = 64 << 20,
    WRITE_THREADS = 8,
};

static void store_row_le32(unsigned char *dst, const int32_t *row, size_t n) {
    if (host_is_little_endian()) {
        memcpy(dst, row, n * sizeof *row);
        return;
    }
    for (size_t j = 0; j < n; j++, dst += 4) {
        uint32_t v = (uint32_t)row[j];
        dst[0] = (unsigned char)v;
        dst[1] = (unsigned char)(v >> 8);
        dst[2] = (unsigned char)(v >> 16);
        dst[3] = (unsigned char)(v >> 24);
    }
}

int write_at(int fd, const unsigned char *buf, size_t size, uint64_t offset) {
    while (size > 0) {
        ssize_t done = pwrite(fd, buf, size, (off_t)offset);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return done < 0 ? errno : EIO;
        buf += done;
        size -= (size_t)done;
        offset += (uint64_t)done;
    }
    return 0;
}

/* Little-endian host, regular file: the rows go from the matrix to the file in one copy,
 * ROWS_PER_CALL at a time, without a packing buffer. A short write finishes row by row. */
static int write_rows_direct(const row_writer *w, size_t begin, size_t end) {
    size_t row_bytes = w->matrix->n * sizeof(int32_t);
    struct iovec iov[ROWS_PER_CALL];
    for (size_t i = begin; i < end; i += ROWS_PER_CALL) {
        int rows = (int)(end - i < ROWS_PER_CALL ? end - i : ROWS_PER_CALL);
        for (int r = 0; r < rows; r++)
            iov[r] = (struct iovec){apsp_matrix_row(w->matrix, i + (size_t)r), row_bytes};
        uint64_t offset = w->base + (uint64_t)i * row_bytes;
        ssize_t done = pwritev(w->fd, iov, rows, (off_t)offset);
        if (done < 0 && errno != EINTR)
            return errno;
        size_t written = done > 0 ? (size_t)done : 0;
        for (int r = 0; r < rows && written < (size_t)rows * row_bytes; r++) {
            size_t start = (size_t)r * row_bytes, skip = written > start ? written - start : 0;
            if (skip >= row_bytes)
                continue;
            int err = write_at(w->fd, (const unsigned char *)iov[r].iov_base + skip,
                               row_bytes - skip, offset + start + skip);
            if (err)
                return err;
        }
    }
    return 0;
}

static int write_rows(void *context, size_t begin, size_t end) {
    const row_writer *w = context;
    if (w->fd >= 0 && host_is_little_endian())
        return write_rows_direct(w, begin, end);
    size_t n = w->matrix->n, row_bytes = n * sizeof(int32_t);
    size_t chunk_rows = row_bytes < WRITE_CHUNK_BYTES ? WRITE_CHUNK_BYTES / row_bytes : 1;
    unsigned char *buf = apsp_malloc(chunk_rows * row_bytes);
    if (!buf)
        return ENOMEM;
    int err = 0;
    for (size_t i = begin; i < end && !err; i += chunk_rows) {
        size_t rows = end - i < chunk_rows ? end - i : chunk_rows;
        for (size_t r = 0; r < rows; r++)
            store_row_le32(buf + r * row_bytes, apsp_matrix_row(w->matrix, i + r), n);
        if (w->fd >= 0)
            err = write_at(w->fd, buf, rows * row_bytes, w->base + (uint64_t)i * row_bytes);
        else if (fwrite(buf, row_bytes, rows, w->stream) != rows)
            err = errno ? errno : EIO;
    }
    free(buf);
    return err;
}

/* The header, at the start of the file or the stream. */
static int write_header(const row_writer *w, const void *header, size_t bytes) {
    if (bytes == 0)
        return 0;
    if (w->fd >= 0)
        return write_at(w->fd, header, bytes, 0);
    return fwrite(header, 1, bytes, w->stream) == bytes ? 0 : errno ? errno : EIO;
}

apsp_status commit_int32_rows(apsp_output *output, const apsp_matrix *matrix, const void *header,
                              size_t header_bytes, apsp_error *error) {
    row_writer w = {.base = header_bytes,
                    .matrix = matrix,
                    .fd = output_file_fd(output),
                    .stream = output_stream(output)};
    uint64_t bytes = header_bytes + (uint64_t)matrix->n * matrix->n * sizeof(int32_t);
    apsp_status status = output_begin(output, bytes, error);
    if (status != APSP_OK) {
        apsp_output_abort(output);
        return status;
    }
    /* Writing gigabytes is bound by copying into the page cache, which threads share out. */
    unsigned threads = w.fd >= 0 && bytes >= PARALLEL_WRITE_BYTES ? WRITE_THREADS : 1;
    int err = write_header(&w, header, header_bytes);
    if (!err)
        err = parallel_slices(matrix->n, threads, write_rows, &w);
    if (err) {
        apsp_status s = fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s",
                             output_target_path(output), strerror(err));
        apsp_output_abort(output);
        return s;
    }
    return output_finish(output, error);
}
