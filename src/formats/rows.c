/* Writing the matrix's V x V cells, little-endian and row-major, after an optional header: the
 * body of the hw3 and npy outputs (rows.h). */
#include "formats/rows.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/parallel.h"
#include "formats/formats.h"
#include "formats/text_rows.h"
#include "output/output_file.h"
#include "output/output_map.h"
#include "base/element_types.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The output's rows [begin, end), packed little-endian into a buffer of whole rows and written
 * to their place in the file: by pwrite at their offset, so that several threads can write one
 * file, or in order to a stream (a pipe or a device). */
typedef struct row_writer {
    uint64_t base; /* the byte offset of row 0 */
    const apsp_matrix *matrix;
    apsp_dtype file_type; /* the cells' type in the file: the matrix's, narrowed or widened */
    int fd;               /* a regular file, written at offsets; -1: use stream */
    FILE *stream;         /* written in order */
} row_writer;

enum {
    WRITE_CHUNK_BYTES = 4 << 20,
    WRITE_THREADS = 8,
};

/* The threads of positioned writes of `bytes` to fd: one for a small write or a stream, else
 * the output's threads up to WRITE_THREADS (WRITE_THREADS when the output has no count). */
static unsigned pwrite_threads(const apsp_output *output, int fd, uint64_t bytes) {
    if (fd < 0 || bytes < PARALLEL_WRITE_BYTES)
        return 1;
    unsigned threads = output_threads(output);
    return threads > 0 && threads < WRITE_THREADS ? threads : WRITE_THREADS;
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
    size_t row_bytes = w->matrix->n * apsp_dtype_size(w->file_type);
    struct iovec iov[ROWS_PER_CALL];
    for (size_t i = begin; i < end; i += ROWS_PER_CALL) {
        int rows = (int)(end - i < ROWS_PER_CALL ? end - i : ROWS_PER_CALL);
        for (int r = 0; r < rows; r++)
            iov[r] = (struct iovec){apsp_matrix_row_cells(w->matrix, i + (size_t)r), row_bytes};
        uint64_t offset = w->base + (uint64_t)i * row_bytes;
        ssize_t done = pwritev(w->fd, iov, rows, (off_t)offset);
        if (done < 0 && errno != EINTR)
            return errno;
        fault_pause("rows-begun");
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
    if (w->fd >= 0 && rows_host_little_endian() && w->file_type == w->matrix->dtype)
        return write_rows_direct(w, begin, end);
    size_t n = w->matrix->n, row_bytes = n * apsp_dtype_size(w->file_type);
    size_t chunk_rows = row_bytes < WRITE_CHUNK_BYTES ? WRITE_CHUNK_BYTES / row_bytes : 1;
    unsigned char *buf = apsp_malloc(chunk_rows * row_bytes);
    if (!buf)
        return ENOMEM;
    int err = 0;
    for (size_t i = begin; i < end && !err; i += chunk_rows) {
        size_t rows = end - i < chunk_rows ? end - i : chunk_rows;
        for (size_t r = 0; r < rows; r++)
            rows_store_cells_le(buf + r * row_bytes, apsp_matrix_row_cells(w->matrix, i + r), n,
                                w->matrix->dtype, w->file_type);
        if (w->fd >= 0)
            err = write_at(w->fd, buf, rows * row_bytes, w->base + (uint64_t)i * row_bytes);
        else if (fwrite(buf, row_bytes, rows, w->stream) != rows)
            err = errno ? errno : EIO;
        fault_pause("rows-begun");
    }
    free(buf);
    return err;
}

/* The header, at the start of the file or the stream. A file gets it after its rows: the
 * commit finds a truncation by another process by the file's length and holes (output_file.c),
 * and the rows written after one would otherwise fill the header's page again, leaving it zeros
 * in a file of the right length. */
static int write_header(const row_writer *w, const void *header, size_t bytes) {
    if (bytes == 0)
        return 0;
    if (w->fd >= 0)
        return write_at(w->fd, header, bytes, 0);
    return fwrite(header, 1, bytes, w->stream) == bytes ? 0 : errno ? errno : EIO;
}

/* "writing the output failed", saying what EFAULT means here (copy_mapped). */
static apsp_status write_failed(const apsp_output *output, int err, apsp_error *error) {
    return fail(
        error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", output_target_path(output),
        err == EFAULT ? "another process truncated the file while it was written" : strerror(err));
}

/* The output's `bytes`, all of them here: its room asked for and waited on (nothing to do while
 * fallocate runs), and the file that output_begin chose into w. Aborts the output on failure. */
static apsp_status begin_whole(apsp_output *output, uint64_t bytes, row_writer *w,
                               apsp_error *error) {
    w->stream = output_stream(output);
    apsp_status status = output_begin(output, bytes, error);
    w->fd = output_file_fd(output); /* which output_begin may have chosen */
    if (status == APSP_OK)
        status = output_room(output, error);
    if (status != APSP_OK)
        apsp_output_abort(output);
    return status;
}

apsp_status commit_bytes(apsp_output *output, const void *bytes, size_t size, apsp_error *error) {
    row_writer w = {0};
    apsp_status status = begin_whole(output, size, &w, error);
    if (status != APSP_OK)
        return status;
    int err = write_header(&w, bytes, size);
    if (err) {
        status = write_failed(output, err, error);
        apsp_output_abort(output);
        return status;
    }
    return output_finish(output, error);
}

apsp_status commit_rows(apsp_output *output, const apsp_matrix *matrix, apsp_dtype file_type,
                        const void *header, size_t header_bytes, apsp_error *error) {
    row_writer w = {.base = header_bytes, .matrix = matrix, .file_type = file_type};
    uint64_t bytes = header_bytes + (uint64_t)matrix->n * matrix->n * apsp_dtype_size(file_type);
    apsp_status status = begin_whole(output, bytes, &w, error);
    if (status != APSP_OK)
        return status;
    /* Writing gigabytes is bound by copying into the page cache, which threads share out. */
    int err = w.stream ? write_header(&w, header, header_bytes) : 0;
    if (!err)
        err = parallel_slices(matrix->n, pwrite_threads(output, w.fd, bytes), write_rows, &w);
    if (!err && !w.stream)
        err = write_header(&w, header, header_bytes);
    if (err) {
        apsp_status s = write_failed(output, err, error);
        apsp_output_abort(output);
        return s;
    }
    return output_finish(output, error);
}

/* A solve's rows written as they come (apsp_row_writer_*): each batch of rows at its offset (a
 * regular file, on several threads for a large batch) or in order (a stream). A stream gets its
 * header with the first rows, so that a solve that fails before any row (a negative cycle)
 * writes nothing there; a file gets it last (write_header), and its temporary copy is simply
 * removed on failure. */
struct apsp_row_writer {
    apsp_output *output;
    size_t vertices;         /* the values of a row */
    size_t rows;             /* V, or the sources' S (apsp_row_writer_begin_rows) */
    size_t next_row;         /* rows come in order, each once (unless any_order) */
    atomic_size_t rows_done; /* the rows written */
    int any_order;           /* apsp_row_writer_any_order: batches on several threads at once */
    pthread_mutex_t lock;    /* the room's one wait (room_once) */
    int room_waited;
    apsp_status room_status;
    apsp_error room_error;
    apsp_dtype dtype;     /* the cells handed in (apsp_row_writer_begin_typed) */
    apsp_dtype file_type; /* the file's: dtype, or int32 for int64 cells in hw3 */
    int text;             /* text, csv, tsv: lines in order, the length known at the end */
    text_rows *table;     /* their lines, and --limit (apsp_row_writer_set_table) */
    uint64_t text_bytes;
    uint64_t base; /* the header's bytes */
    char header[256];
    size_t header_pending; /* the header's bytes not written yet */
};

apsp_status apsp_row_writer_begin(apsp_output *output, apsp_format format, size_t vertices,
                                  apsp_row_writer **out, apsp_error *error) {
    if (format == APSP_FORMAT_AUTO)
        format = apsp_format_for(output_target_path(output), 1);
    if (format != APSP_FORMAT_TEXT)
        return apsp_row_writer_begin_rows(output, format, vertices, vertices, out, error);
    *out = NULL;
    apsp_output_abort(output);
    return fail(error, APSP_ERR_USAGE, "rows cannot be written as they come in %s",
                apsp_format_name(format));
}

apsp_status apsp_row_writer_begin_rows(apsp_output *output, apsp_format format, size_t rows,
                                       size_t vertices, apsp_row_writer **out, apsp_error *error) {
    return apsp_row_writer_begin_typed(output, format, APSP_INT32, rows, vertices, out, error);
}

/* Why `format` cannot take rows of `dtype` as they come; NULL when it can. */
static const char *format_refuses(apsp_format format, apsp_dtype dtype) {
    if (format != APSP_FORMAT_NPY && format != APSP_FORMAT_HW3 && format != APSP_FORMAT_TEXT &&
        format != APSP_FORMAT_CSV && format != APSP_FORMAT_TSV)
        return "rows cannot be written as they come in";
    if ((unsigned)dtype > APSP_FLOAT64)
        return "no element type for";
    if (format == APSP_FORMAT_HW3 && (element_is_real(dtype)))
        return "floating-point distances cannot go into the int32 cells of";
    return NULL;
}

apsp_status apsp_row_writer_begin_typed(apsp_output *output, apsp_format format, apsp_dtype dtype,
                                        size_t rows, size_t vertices, apsp_row_writer **out,
                                        apsp_error *error) {
    *out = NULL;
    if (format == APSP_FORMAT_AUTO)
        format = apsp_format_for(output_target_path(output), 1);
    const char *refused = format_refuses(format, dtype);
    if (refused) {
        apsp_output_abort(output);
        return fail(error, APSP_ERR_USAGE, "%s %s", refused, apsp_format_name(format));
    }
    char header[256];
    size_t header_bytes = 0;
    int text = format == APSP_FORMAT_TEXT || format == APSP_FORMAT_CSV || format == APSP_FORMAT_TSV;
    char delimiter = format == APSP_FORMAT_CSV ? ',' : format == APSP_FORMAT_TSV ? '\t' : 0;
    apsp_dtype file_type = format == APSP_FORMAT_HW3 ? APSP_INT32 : dtype;
    if (format == APSP_FORMAT_NPY)
        header_bytes = npy_header_rows(rows, vertices, dtype, header);
    apsp_row_writer *w = apsp_calloc(1, sizeof *w);
    text_rows *table = w ? text_rows_create(delimiter) : NULL;
    apsp_status status = table ? APSP_OK : fail(error, APSP_ERR_NO_MEMORY, "out of memory");
    uint64_t bytes =
        text ? 0 : header_bytes + (uint64_t)rows * vertices * apsp_dtype_size(file_type);
    if (status == APSP_OK)
        status = output_begin(output, bytes, error);
    if (status != APSP_OK) {
        free(w);
        text_rows_destroy(table);
        apsp_output_abort(output);
        return status;
    }
    *w = (apsp_row_writer){.output = output,
                           .table = table,
                           .vertices = vertices,
                           .rows = rows,
                           .dtype = dtype,
                           .file_type = file_type,
                           .text = text,
                           .base = header_bytes,
                           .header_pending = header_bytes};
    memcpy(w->header, header, header_bytes);
    pthread_mutex_init(&w->lock, NULL);
    *out = w;
    return APSP_OK;
}

static void free_writer(apsp_row_writer *w) {
    pthread_mutex_destroy(&w->lock);
    text_rows_destroy(w->table);
    free(w);
}

/* The file's room, asked for at begin, waited for before the first rows (whichever batch comes
 * first), once. */
static apsp_status room_once(apsp_row_writer *w, apsp_error *error) {
    pthread_mutex_lock(&w->lock);
    if (!w->room_waited) {
        w->room_status = output_room(w->output, &w->room_error);
        w->room_waited = 1;
        if (w->room_status == APSP_OK && !w->text)
            fault_pause("first-rows");
    }
    apsp_status status = w->room_status;
    if (status != APSP_OK && error)
        *error = w->room_error;
    pthread_mutex_unlock(&w->lock);
    return status;
}

static int write_pending_header(apsp_row_writer *w, const row_writer *rw) {
    int err = write_header(rw, w->header, w->header_pending);
    w->header_pending = 0;
    return err;
}

apsp_status apsp_row_writer_put(void *writer, size_t first_row, size_t count, const int32_t *rows,
                                size_t pitch, apsp_error *error) {
    return apsp_row_writer_put_cells(writer, first_row, count, rows, pitch, error);
}

/* int64 cells bound for hw3's int32 ones: the first distance beyond int32's range refuses the
 * batch (APSP_ERR_OUTPUT), as apsp_output_commit_hw3 refuses such a matrix. */
static apsp_status check_narrowing(const apsp_row_writer *w, size_t first_row, size_t count,
                                   const void *rows, size_t pitch, apsp_error *error) {
    if (w->dtype != APSP_INT64 || w->file_type != APSP_INT32)
        return APSP_OK;
    for (size_t r = 0; r < count; r++) {
        const int64_t *row = (const int64_t *)rows + r * pitch;
        for (size_t j = 0; j < w->vertices; j++)
            if (row[j] < APSP_INF64 && (row[j] >= APSP_INF || row[j] <= -APSP_INF))
                return fail(error, APSP_ERR_OUTPUT,
                            "%s: the hw3 format holds int32 distances, but distance %zu of row "
                            "%zu is %lld, beyond (-%d, %d): write .npy or text instead",
                            output_target_path(w->output), j, first_row + r, (long long)row[j],
                            APSP_INF, APSP_INF);
    }
    return APSP_OK;
}

/* Rows of `dtype` (the writer's, or int32 for a float file: put_int32) into the output. */
static apsp_status put_rows(apsp_row_writer *w, size_t first_row, size_t count, const void *rows,
                            size_t pitch, apsp_dtype dtype, apsp_error *error) {
    if ((!w->any_order && first_row != w->next_row) || first_row > w->rows ||
        count > w->rows - first_row || pitch < w->vertices)
        return fail(error, APSP_ERR_INTERNAL, "rows %zu-%zu came out of order (next: %zu)",
                    first_row, first_row + count, w->next_row);
    if (!w->any_order)
        w->next_row = first_row + count;
    apsp_status room = room_once(w, error);
    if (room != APSP_OK)
        return room;
    if (w->text) {
        int err = text_rows_put(w->table, w->output, first_row, count, rows, pitch, w->dtype,
                                w->vertices, &w->text_bytes);
        if (err)
            return write_failed(w->output, err, error);
        atomic_fetch_add(&w->rows_done, count);
        return APSP_OK;
    }
    apsp_status narrow =
        dtype == w->dtype ? check_narrowing(w, first_row, count, rows, pitch, error) : APSP_OK;
    if (narrow != APSP_OK)
        return narrow;
    if (text_rows_limited(w->table) &&
        !(rows = text_rows_cut(w->table, count, rows, pitch, w->dtype)))
        return write_failed(w->output, ENOMEM, error);
    /* The batch as a matrix of its own, at its place in the file. */
    const size_t file_cell = apsp_dtype_size(w->file_type);
    const apsp_matrix batch = {
        .n = w->vertices, .stride = pitch, .dtype = dtype, .cells = (void *)rows};
    row_writer rw = {.base = w->base + (uint64_t)first_row * w->vertices * file_cell,
                     .matrix = &batch,
                     .file_type = w->file_type,
                     .fd = output_file_fd(w->output),
                     .stream = output_stream(w->output)};
    uint64_t bytes = (uint64_t)count * w->vertices * file_cell;
    int err = rw.stream ? write_pending_header(w, &rw) : 0;
    /* (the mapped copy widens int32 rows too; hw3's narrowing goes through pwrite's buffer) */
    int mapped = !err && rw.fd >= 0 && rows_host_little_endian() &&
                         (w->file_type == dtype || dtype == APSP_INT32) &&
                         output_mappable(w->output)
                     ? rows_write_mapped(w->output, rw.base, &batch, w->file_type, count)
                     : -1;
    if (mapped >= 0)
        err = mapped;
    else if (!err)
        err = parallel_slices(count, pwrite_threads(w->output, rw.fd, bytes), write_rows, &rw);
    if (err)
        return write_failed(w->output, err, error);
    atomic_fetch_add(&w->rows_done, count);
    return APSP_OK;
}

apsp_status apsp_row_writer_put_cells(void *writer, size_t first_row, size_t count,
                                      const void *rows, size_t pitch, apsp_error *error) {
    apsp_row_writer *w = writer;
    return put_rows(w, first_row, count, rows, pitch, w->dtype, error);
}

int apsp_row_writer_takes_int32(const apsp_row_writer *w) {
    return !w->text && !text_rows_limited(w->table) && element_is_real(w->file_type);
}

apsp_status apsp_row_writer_put_int32(void *writer, size_t first_row, size_t count,
                                      const int32_t *rows, size_t pitch, apsp_error *error) {
    apsp_row_writer *w = writer;
    if (!apsp_row_writer_takes_int32(w))
        return fail(error, APSP_ERR_USAGE,
                    "apsp_row_writer_put_int32: the writer's cells are not float ones of a "
                    "binary output without a limit");
    return put_rows(w, first_row, count, rows, pitch, APSP_INT32, error);
}

int apsp_row_writer_any_order(apsp_row_writer *w) {
    /* --limit's cut copies a batch into the table's one buffer: one batch at a time. */
    w->any_order = !w->text && !text_rows_limited(w->table) && output_file_fd(w->output) >= 0;
    return w->any_order;
}

apsp_status apsp_row_writer_finish(apsp_row_writer *w, apsp_error *error) {
    size_t done = atomic_load(&w->rows_done);
    if (done != w->rows) {
        apsp_row_writer_abort(w);
        return fail(error, APSP_ERR_INTERNAL, "the output got %zu of %zu rows", done, w->rows);
    }
    if (w->text)
        output_set_length(w->output, w->text_bytes);
    /* A file's header (a stream's too, where no row came: V = 0). */
    row_writer rw = {.fd = output_file_fd(w->output), .stream = output_stream(w->output)};
    int err = write_pending_header(w, &rw);
    if (err) {
        apsp_status failed = write_failed(w->output, err, error);
        apsp_row_writer_abort(w);
        return failed;
    }
    apsp_status status = output_finish(w->output, error);
    free_writer(w);
    return status;
}

void apsp_row_writer_prepare(void *writer) {
    apsp_row_writer_prepare_threads(writer, 0);
}

void apsp_row_writer_prepare_threads(void *writer, unsigned threads) {
    apsp_row_writer *w = writer;
    if (!w->text)
        output_prepare(w->output, threads);
}

void apsp_row_writer_stop_preparing(void *writer) {
    output_stop_preparing(((apsp_row_writer *)writer)->output);
}

void apsp_row_writer_abort(apsp_row_writer *w) {
    if (!w)
        return;
    apsp_output_abort(w->output);
    free_writer(w);
}

apsp_status apsp_row_writer_set_table(apsp_row_writer *w, const char *const *labels,
                                      const int32_t *row_vertices, int limited, double limit,
                                      apsp_error *error) {
    if (w->next_row > 0 || w->any_order || atomic_load(&w->rows_done) > 0)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_row_writer_set_table after the first rows or apsp_row_writer_any_order");
    return text_rows_set(w->table, labels, row_vertices, w->rows, limited, limit, error);
}
