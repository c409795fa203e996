/* Text rows and the long table (text_rows.h). */
#include "formats/text_rows.h"
#include "base/element_types.h"
#include "base/error.h"
#include "base/fault.h"
#include "formats/formats.h"
#include "formats/rows.h"
#include "output/output_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a pair of the longest labels quoted (csv.c takes none over 1 MiB: 2 MiB quoted). */
enum { TEXT_BUFFER = 8 << 20 };

struct text_rows {
    char delimiter;
    const char *const *labels;
    int32_t *row_vertices;
    int limited, header_done;
    double limit;
    char *buf; /* TEXT_BUFFER bytes of lines on their way out */
    size_t used;
    void *cut; /* text_rows_cut's copy */
    size_t cut_bytes;
};

text_rows *text_rows_create(char delimiter) {
    text_rows *t = apsp_calloc(1, sizeof *t);
    if (t && !(t->buf = apsp_malloc(TEXT_BUFFER))) {
        free(t);
        return NULL;
    }
    if (t)
        t->delimiter = delimiter;
    return t;
}

void text_rows_destroy(text_rows *t) {
    if (!t)
        return;
    free(t->row_vertices);
    free(t->buf);
    free(t->cut);
    free(t);
}

apsp_status text_rows_set(text_rows *t, const char *const *labels, const int32_t *row_vertices,
                          size_t rows, int limited, double limit, apsp_error *error) {
    t->labels = labels;
    t->limited = limited;
    t->limit = limit;
    if (!row_vertices)
        return APSP_OK;
    t->row_vertices = apsp_malloc((rows ? rows : 1) * sizeof *row_vertices);
    if (!t->row_vertices)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for the long table's rows");
    memcpy(t->row_vertices, row_vertices, rows * sizeof *row_vertices);
    return APSP_OK;
}

int text_rows_limited(const text_rows *t) {
    return t->limited;
}

/* Cell j of the row as a double, and whether it is reachable: below the type's marker. */
static int reachable(const void *row, size_t j, apsp_dtype dtype, double *value) {
    switch (dtype) {
#define REACHABLE(TYPE, NAME, C, NONE, REAL, DIGITS)                                               \
    case TYPE:                                                                                     \
        *value = (double)((const C *)row)[j];                                                      \
        return REAL ? !isinf(*value) || *value < 0 : ((const C *)row)[j] < (C)(NONE);
        ELEMENT_TYPES(REACHABLE)
#undef REACHABLE
    }
    *value = ((const int32_t *)row)[j];
    return ((const int32_t *)row)[j] < APSP_INF;
}

static int kept(const text_rows *t, const void *row, size_t j, apsp_dtype dtype) {
    double value;
    return reachable(row, j, dtype, &value) && (!t->limited || value <= t->limit);
}

static int flush(text_rows *t, int fd, FILE *stream, uint64_t *offset) {
    int err = 0;
    if (fd >= 0)
        err = write_at(fd, (const unsigned char *)t->buf, t->used, *offset);
    else if (fwrite(t->buf, 1, t->used, stream) != t->used)
        err = errno ? errno : EIO;
    *offset += t->used;
    t->used = 0;
    return err;
}

/* Room for `bytes` more in the buffer, flushing it first where it lacks them. */
static int room(text_rows *t, size_t bytes, int fd, FILE *stream, uint64_t *offset) {
    return t->used + bytes > TEXT_BUFFER ? flush(t, fd, stream, offset) : 0;
}

/* Vertex v as the table names it: its label, quoted as RFC 4180 says where it holds the
 * delimiter, a quote or a line break, or its number. A label fits the buffer (csv.c takes none
 * over 1 MiB). */
static void put_vertex(text_rows *t, size_t v) {
    char *p = t->buf + t->used;
    if (!t->labels) {
        t->used += (size_t)sprintf(p, "%zu", v);
        return;
    }
    const char *label = t->labels[v];
    size_t len = strlen(label);
    char specials[] = {'"', '\n', '\r', t->delimiter, '\0'};
    if (strcspn(label, specials) == len) {
        memcpy(p, label, len);
        t->used += len;
        return;
    }
    *p++ = '"';
    for (size_t i = 0; i < len; i++) {
        if (label[i] == '"')
            *p++ = '"';
        *p++ = label[i];
    }
    *p++ = '"';
    t->used = (size_t)(p - t->buf);
}

static size_t shown_bytes(const text_rows *t, size_t v) {
    return t->labels ? 2 * strlen(t->labels[v]) + 2 : 24;
}

static int put_pair(text_rows *t, size_t from, size_t to, const void *row, apsp_dtype dtype, int fd,
                    FILE *stream, uint64_t *offset) {
    int err =
        room(t, shown_bytes(t, from) + shown_bytes(t, to) + TEXT_CELL_MAX + 2, fd, stream, offset);
    if (err)
        return err;
    put_vertex(t, from);
    t->buf[t->used++] = t->delimiter;
    put_vertex(t, to);
    t->buf[t->used++] = t->delimiter;
    size_t cell = text_row(t->buf + t->used, (const char *)row + to * apsp_dtype_size(dtype), dtype,
                           1); /* (its newline too) */
    t->used += cell;
    return 0;
}

static int put_long(text_rows *t, size_t first_row, size_t count, const void *rows, size_t pitch,
                    apsp_dtype dtype, size_t vertices, int fd, FILE *stream, uint64_t *offset) {
    int err = 0;
    if (!t->header_done) {
        t->header_done = 1;
        t->used += (size_t)sprintf(t->buf + t->used, "source%ctarget%cdistance\n", t->delimiter,
                                   t->delimiter);
    }
    for (size_t r = 0; r < count && !err; r++) {
        const void *row = (const char *)rows + r * pitch * apsp_dtype_size(dtype);
        size_t from = t->row_vertices ? (size_t)t->row_vertices[first_row + r] : first_row + r;
        for (size_t j = 0; j < vertices && !err; j++)
            if (kept(t, row, j, dtype))
                err = put_pair(t, from, j, row, dtype, fd, stream, offset);
    }
    return err;
}

/* The text output's lines: a row at a time. */
static int put_lines(text_rows *t, size_t count, const void *rows, size_t pitch, apsp_dtype dtype,
                     size_t vertices, int fd, FILE *stream, uint64_t *offset) {
    char *line = apsp_malloc((vertices ? vertices : 1) * TEXT_CELL_MAX);
    if (!line)
        return ENOMEM;
    int err = flush(t, fd, stream, offset);
    for (size_t r = 0; r < count && !err; r++) {
        size_t bytes = text_row(line, (const char *)rows + r * pitch * apsp_dtype_size(dtype),
                                dtype, vertices);
        if (fd >= 0)
            err = write_at(fd, (const unsigned char *)line, bytes, *offset);
        else if (fwrite(line, 1, bytes, stream) != bytes)
            err = errno ? errno : EIO;
        *offset += bytes;
    }
    free(line);
    return err;
}

int text_rows_put(text_rows *t, apsp_output *output, size_t first_row, size_t count,
                  const void *rows, size_t pitch, apsp_dtype dtype, size_t vertices,
                  uint64_t *offset) {
    int fd = output_file_fd(output);
    FILE *stream = output_stream(output);
    if (t->delimiter) {
        int err = put_long(t, first_row, count, rows, pitch, dtype, vertices, fd, stream, offset);
        return err ? err : flush(t, fd, stream, offset);
    }
    if (t->limited && !(rows = text_rows_cut(t, count, rows, pitch, dtype)))
        return ENOMEM;
    return put_lines(t, count, rows, pitch, dtype, vertices, fd, stream, offset);
}

/* Each of the `count` cells above the limit made the type's unreachable marker. */
static void cut_cells(void *cells, size_t count, apsp_dtype dtype, double limit) {
    for (size_t j = 0; j < count; j++) {
        double value;
        if (!reachable(cells, j, dtype, &value) || value <= limit)
            continue;
        if (dtype == APSP_INT32)
            ((int32_t *)cells)[j] = APSP_INF;
        else if (dtype == APSP_INT64)
            ((int64_t *)cells)[j] = APSP_INF64;
        else if (dtype == APSP_FLOAT32)
            ((float *)cells)[j] = INFINITY;
        else
            ((double *)cells)[j] = INFINITY;
    }
}

const void *text_rows_cut(text_rows *t, size_t count, const void *rows, size_t pitch,
                          apsp_dtype dtype) {
    size_t bytes = count * pitch * apsp_dtype_size(dtype);
    if (bytes > t->cut_bytes) {
        free(t->cut);
        t->cut_bytes = 0;
        if (!(t->cut = apsp_malloc(bytes ? bytes : 1)))
            return NULL;
        t->cut_bytes = bytes;
    }
    memcpy(t->cut, rows, bytes);
    cut_cells(t->cut, count * pitch, dtype, t->limit);
    return t->cut;
}

void apsp_matrix_cut(apsp_matrix *m, double limit) {
    for (size_t i = 0; i < m->n; i++)
        cut_cells(apsp_matrix_row_cells(m, i), m->n, m->dtype, limit);
}
