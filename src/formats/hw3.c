/* The hw3 format of the course: little-endian int32 V, E, then E triples (src, dst, w); the
 * output is V*V int32 row-major with APSP_INF for unreachable pairs.
 *
 * The reader trusts nothing in the file: it checks the header against the file size before
 * allocating, every endpoint and weight, and that the file ends exactly after the last edge. */
#include "apsp.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/matrix.h"
#include "formats/output_file.h"
#include "base/parallel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

enum { HEADER_BYTES = 8, EDGE_BYTES = 12, EDGES_PER_CHUNK = 1 << 16 };

static int32_t load_le32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

typedef struct hw3_reader {
    const char *path;
    FILE *file;
    int32_t vertices;
    int32_t edges;
    int32_t max_weight; /* (V - 1) * w must stay below APSP_INF */
    int regular;        /* a regular file, whose size was checked against E */
} hw3_reader;

static apsp_status read_header(hw3_reader *r, apsp_error *error) {
    unsigned char header[HEADER_BYTES];
    size_t got = fread(header, 1, sizeof header, r->file);
    if (got < sizeof header) {
        if (ferror(r->file))
            return fail(error, APSP_ERR_INPUT, "%s: read error: %s", r->path, strerror(errno));
        return fail(error, APSP_ERR_INPUT,
                    "%s: truncated header: the file has %zu bytes, the header needs 8", r->path,
                    got);
    }
    r->vertices = load_le32(header);
    r->edges = load_le32(header + 4);
    if (r->vertices <= 0)
        return fail(error, APSP_ERR_INPUT,
                    "%s: byte offset 0: vertex count V = %d, it must be at least 1", r->path,
                    r->vertices);
    if (r->edges < 0)
        return fail(error, APSP_ERR_INPUT,
                    "%s: byte offset 4: edge count E = %d, it must not be negative", r->path,
                    r->edges);
    /* With V = 1 every edge is an ignored self-loop: (V - 1) * w = 0 for any w. */
    r->max_weight = r->vertices > 1 ? (APSP_INF - 1) / (r->vertices - 1) : INT32_MAX;
    return APSP_OK;
}

/* For a regular file the size tells at once whether the edge list is complete. */
static apsp_status check_file_size(hw3_reader *r, apsp_error *error) {
    struct stat st;
    if (fstat(fileno(r->file), &st) != 0 || !S_ISREG(st.st_mode))
        return APSP_OK;
    r->regular = 1;
    uint64_t size = (uint64_t)st.st_size;
    uint64_t expected = HEADER_BYTES + (uint64_t)r->edges * EDGE_BYTES;
    if (size < expected) {
        uint64_t complete = (size - HEADER_BYTES) / EDGE_BYTES;
        return fail(error, APSP_ERR_INPUT,
                    "%s: truncated: E = %d edges need %llu bytes but the file has %llu; "
                    "edge %llu at byte offset %llu is incomplete or missing",
                    r->path, r->edges, (unsigned long long)expected, (unsigned long long)size,
                    (unsigned long long)complete,
                    (unsigned long long)(HEADER_BYTES + complete * EDGE_BYTES));
    }
    if (size > expected)
        return fail(error, APSP_ERR_INPUT,
                    "%s: %llu bytes of trailing garbage after the last of E = %d edges "
                    "(from byte offset %llu)",
                    r->path, (unsigned long long)(size - expected), r->edges,
                    (unsigned long long)expected);
    return APSP_OK;
}

static apsp_status check_edge(const hw3_reader *r, int64_t index, int32_t src, int32_t dst,
                              int32_t w, apsp_error *error) {
    unsigned long long offset = HEADER_BYTES + (unsigned long long)index * EDGE_BYTES;
    if (src < 0 || src >= r->vertices)
        return fail(error, APSP_ERR_INPUT,
                    "%s: edge %lld at byte offset %llu: source vertex %d is out of range [0, %d)",
                    r->path, (long long)index, offset, src, r->vertices);
    if (dst < 0 || dst >= r->vertices)
        return fail(error, APSP_ERR_INPUT,
                    "%s: edge %lld at byte offset %llu: destination vertex %d is out of range "
                    "[0, %d)",
                    r->path, (long long)index, offset + 4, dst, r->vertices);
    if (w < 0)
        return fail(error, APSP_ERR_INPUT,
                    "%s: edge %lld at byte offset %llu: negative weight %d is not supported",
                    r->path, (long long)index, offset + 8, w);
    if (w > r->max_weight)
        return fail(error, APSP_ERR_INPUT,
                    "%s: edge %lld at byte offset %llu: weight %d is too large: with V = %d, "
                    "weights above %d could give distances that reach the unreachable marker %d",
                    r->path, (long long)index, offset + 8, w, r->vertices, r->max_weight, APSP_INF);
    return APSP_OK;
}

/* Checks `count` edges from edge `first` on (unless `checked`: read ahead, they were), and
 * puts them into m unless it is NULL. */
static apsp_status take_edges(const hw3_reader *r, const unsigned char *edges, int64_t first,
                              size_t count, int checked, apsp_matrix *m, apsp_error *error) {
    for (size_t e = 0; e < count; e++) {
        const unsigned char *p = edges + e * EDGE_BYTES;
        int32_t src = load_le32(p), dst = load_le32(p + 4), w = load_le32(p + 8);
        apsp_status status =
            checked ? APSP_OK : check_edge(r, first + (int64_t)e, src, dst, w, error);
        if (status != APSP_OK)
            return status;
        if (m && src != dst) {
            int32_t *cell = apsp_matrix_row(m, (size_t)src) + dst;
            if (w < *cell)
                *cell = w; /* duplicates keep the least weight */
        }
    }
    return APSP_OK;
}

/* Reads the edges from edge `done` on into m. A pipe (m NULL, `held` set) is read ahead into
 * `held` instead, up to `room` edges, so that a stream that claims a large V and ends early
 * costs no V x V matrix; *done says how far it got. */
static apsp_status read_edges(hw3_reader *r, apsp_matrix *m, unsigned char *held, int64_t room,
                              int64_t *done_edges, apsp_error *error) {
    unsigned char *chunk = held ? NULL : apsp_malloc((size_t)EDGES_PER_CHUNK * EDGE_BYTES);
    if (!held && !chunk)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->path);
    apsp_status status = APSP_OK;
    int64_t done = *done_edges, end = held && room < r->edges ? room : r->edges;
    while (done < end && status == APSP_OK) {
        size_t want = (size_t)(end - done < EDGES_PER_CHUNK ? end - done : EDGES_PER_CHUNK);
        unsigned char *into = held ? held + (size_t)done * EDGE_BYTES : chunk;
        size_t got = fread(into, EDGE_BYTES, want, r->file);
        status = take_edges(r, into, done, got, 0, m, error);
        if (status == APSP_OK && got < want) {
            if (ferror(r->file))
                status =
                    fail(error, APSP_ERR_INPUT, "%s: read error: %s", r->path, strerror(errno));
            else
                status = fail(error, APSP_ERR_INPUT,
                              "%s: truncated: the file ends inside or before edge %lld "
                              "(byte offset %llu) of E = %d",
                              r->path, (long long)(done + (int64_t)got),
                              (unsigned long long)(HEADER_BYTES +
                                                   (uint64_t)(done + (int64_t)got) * EDGE_BYTES),
                              r->edges);
        }
        done += (int64_t)got;
    }
    free(chunk);
    *done_edges = done;
    return status;
}

/* The error's message with the file's name in front. */
static apsp_status with_path(const hw3_reader *r, apsp_status status, apsp_error *error) {
    if (!error)
        return status;
    char detail[sizeof error->message];
    memcpy(detail, error->message, sizeof detail);
    return fail(error, status, "%s: %s", r->path, detail);
}

static apsp_status create_matrix(const hw3_reader *r, apsp_matrix **m, apsp_error *error) {
    apsp_status status = apsp_matrix_create((size_t)r->vertices, m, error);
    return status == APSP_OK ? status : with_path(r, status, error);
}

/* From a pipe, as many edges as the matrix has bytes (at most) are read and checked before the
 * matrix is made: a short or malformed stream is refused at the cost of its own size. */
static apsp_status read_ahead(hw3_reader *r, unsigned char **held, int64_t *count,
                              apsp_error *error) {
    *count = 0;
    /* A V whose matrix cannot be made is refused first, as apsp_matrix_create would. */
    apsp_status status = matrix_fits_memory((size_t)r->vertices, error);
    if (status != APSP_OK)
        return with_path(r, status, error);
    uint64_t matrix = apsp_matrix_bytes((uint64_t)r->vertices);
    int64_t room = (int64_t)(matrix / EDGE_BYTES), capacity = 0;
    room = room < r->edges ? room : r->edges;
    /* The buffer grows with what arrives: a stream that claims many edges and brings few costs
     * only what it brings. */
    while (status == APSP_OK && *count == capacity && capacity < room) {
        capacity = capacity ? 2 * capacity : EDGES_PER_CHUNK;
        capacity = capacity < room ? capacity : room;
        unsigned char *bigger = apsp_realloc(*held, (size_t)capacity * EDGE_BYTES);
        if (!bigger)
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->path);
        *held = bigger;
        status = read_edges(r, NULL, *held, capacity, count, error);
    }
    return status;
}

/* Needed for pipes, where the size was not known in advance. */
static apsp_status check_end_of_file(const hw3_reader *r, apsp_error *error) {
    if (fgetc(r->file) != EOF)
        return fail(error, APSP_ERR_INPUT,
                    "%s: trailing garbage after the last of E = %d edges (from byte offset %llu)",
                    r->path, r->edges,
                    (unsigned long long)(HEADER_BYTES + (uint64_t)r->edges * EDGE_BYTES));
    return APSP_OK;
}

apsp_status apsp_hw3_vertices(const char *path, size_t *vertices, apsp_error *error) {
    struct stat st;
    *vertices = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return APSP_OK; /* a stream is read once, by apsp_read_hw3; errors are its to give */
    hw3_reader r = {.path = path, .file = fopen(path, "rb")};
    if (!r.file)
        return fail(error, APSP_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    apsp_status status = read_header(&r, error);
    if (status == APSP_OK)
        status = check_file_size(&r, error);
    fclose(r.file);
    if (status == APSP_OK)
        *vertices = (size_t)r.vertices;
    return status;
}

apsp_status apsp_read_hw3(const char *path, apsp_matrix **out, apsp_error *error) {
    *out = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return fail(error, APSP_ERR_INPUT, "%s: is a directory, not an input file", path);
    hw3_reader r = {.path = path, .file = fopen(path, "rb")};
    if (!r.file)
        return fail(error, APSP_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));

    apsp_matrix *m = NULL;
    unsigned char *held = NULL;
    int64_t done = 0, held_count = 0;
    apsp_status status = read_header(&r, error);
    if (status == APSP_OK)
        status = check_file_size(&r, error);
    if (status == APSP_OK && !r.regular)
        status = read_ahead(&r, &held, &held_count, error);
    if (status == APSP_OK)
        status = create_matrix(&r, &m, error);
    if (status == APSP_OK)
        status = take_edges(&r, held, 0, (size_t)held_count, 1, m, error);
    done = held_count;
    free(held);
    if (status == APSP_OK)
        status = read_edges(&r, m, NULL, 0, &done, error);
    if (status == APSP_OK)
        status = check_end_of_file(&r, error);
    fclose(r.file);
    if (status != APSP_OK) {
        apsp_matrix_destroy(m);
        return status;
    }
    *out = m;
    return APSP_OK;
}

static int host_is_little_endian(void) {
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 1;
}

/* The output's rows [begin, end), packed little-endian into a buffer of whole rows and written
 * to their place in the file: by pwrite at their offset, so that several threads can write one
 * file, or in order to a stream (a pipe or a device). */
typedef struct row_writer {
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

static int write_at(int fd, const unsigned char *buf, size_t size, uint64_t offset) {
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
        uint64_t offset = (uint64_t)i * row_bytes;
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
            err = write_at(w->fd, buf, rows * row_bytes, (uint64_t)i * row_bytes);
        else if (fwrite(buf, row_bytes, rows, w->stream) != rows)
            err = errno ? errno : EIO;
    }
    free(buf);
    return err;
}

apsp_status apsp_output_commit_hw3(apsp_output *output, const apsp_matrix *matrix,
                                   apsp_error *error) {
    row_writer w = {
        .matrix = matrix, .fd = output_file_fd(output), .stream = output_stream(output)};
    uint64_t bytes = (uint64_t)matrix->n * matrix->n * sizeof(int32_t);
    apsp_status status = output_begin(output, bytes, error);
    if (status != APSP_OK) {
        apsp_output_abort(output);
        return status;
    }
    /* Writing gigabytes is bound by copying into the page cache, which threads share out. */
    unsigned threads = w.fd >= 0 && bytes >= PARALLEL_WRITE_BYTES ? WRITE_THREADS : 1;
    int err = parallel_slices(matrix->n, threads, write_rows, &w);
    if (err) {
        apsp_status s = fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s",
                             output_target_path(output), strerror(err));
        apsp_output_abort(output);
        return s;
    }
    return output_finish(output, error);
}

apsp_status apsp_write_hw3(const char *path, const apsp_matrix *matrix, apsp_error *error) {
    apsp_output *output;
    apsp_status status = apsp_output_open(path, &output, error);
    if (status != APSP_OK)
        return status;
    return apsp_output_commit_hw3(output, matrix, error);
}
