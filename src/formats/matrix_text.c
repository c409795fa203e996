/* The text output (.txt): V lines, each of V distances separated by one space, "inf" where
 * there is no path (as NumPy prints np.inf; numpy.loadtxt and a person both read it). Meant for
 * small matrices: it is written in order, integers formatted by hand into a large buffer;
 * floating-point values with the digits that read back to the same value (%.9g for float32,
 * %.17g for float64). */
#include "base/element_types.h"
#include "base/error.h"
#include "base/fault.h"
#include "formats/formats.h"
#include "output/output_file.h"
#include "formats/rows.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_BUFFER = 1 << 20, CELL_MAX = TEXT_CELL_MAX };

typedef struct text_out {
    apsp_output *output;
    int fd; /* a regular file, written at `offset`; -1: the stream */
    FILE *stream;
    uint64_t offset;
    char *buf;
    size_t used;
} text_out;

static int flush(text_out *w) {
    int err = 0;
    if (w->fd >= 0)
        err = write_at(w->fd, (const unsigned char *)w->buf, w->used, w->offset);
    else if (fwrite(w->buf, 1, w->used, w->stream) != w->used)
        err = errno ? errno : EIO;
    w->offset += w->used;
    w->used = 0;
    return err;
}

/* The decimal digits of an integer distance, by hand: a printf per cell would be most of the
 * cost. */
static size_t put_integer(char *p, int64_t d, int64_t inf) {
    if (d >= inf) {
        memcpy(p, "inf", 3);
        return 3;
    }
    char digits[20];
    size_t n = 0, sign = d < 0; /* negative weights: d > -inf */
    uint64_t v = sign ? (uint64_t)-d : (uint64_t)d;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    p[0] = '-';
    for (size_t i = 0; i < n; i++)
        p[sign + i] = digits[n - 1 - i];
    return sign + n;
}

static size_t put_real(char *p, double d, int digits) {
    if (isinf(d)) {
        memcpy(p, d > 0 ? "inf" : "-inf", d > 0 ? 3 : 4);
        return d > 0 ? 3 : 4;
    }
    int n = snprintf(p, CELL_MAX, "%.*g", digits, d);
    return n > 0 ? (size_t)n : 0;
}

/* Cell j of a row of the type. */
static size_t put_cell(char *p, apsp_dtype dtype, const void *row, size_t j) {
    switch (dtype) {
#define PUT_CELL(TYPE, NAME, C, NONE, REAL, DIGITS)                                                \
    case TYPE:                                                                                     \
        return REAL ? put_real(p, (double)((const C *)row)[j], DIGITS)                             \
                    : put_integer(p, (int64_t)((const C *)row)[j], (int64_t)(NONE));
        ELEMENT_TYPES(PUT_CELL)
#undef PUT_CELL
    }
    return put_integer(p, ((const int32_t *)row)[j], APSP_INF);
}

size_t text_row(char *dst, const void *row, apsp_dtype dtype, size_t n) {
    size_t used = 0;
    for (size_t j = 0; j < n; j++) {
        used += put_cell(dst + used, dtype, row, j);
        dst[used++] = j + 1 < n ? ' ' : '\n';
    }
    return used;
}

static int write_cells(text_out *w, const apsp_matrix *m) {
    int err = 0;
    for (size_t i = 0; i < m->n && !err; i++) {
        const void *row = apsp_matrix_row_cells(m, i);
        for (size_t j = 0; j < m->n && !err; j++) {
            if (w->used + CELL_MAX > TEXT_BUFFER)
                err = flush(w);
            w->used += put_cell(w->buf + w->used, m->dtype, row, j);
            w->buf[w->used++] = j + 1 < m->n ? ' ' : '\n';
        }
    }
    return err ? err : flush(w);
}

apsp_status commit_text(apsp_output *output, const apsp_matrix *matrix, apsp_error *error) {
    text_out w = {
        .output = output, .stream = output_stream(output), .buf = apsp_malloc(TEXT_BUFFER)};
    apsp_status status = w.buf ? output_begin(output, 0, error)
                               : fail(error, APSP_ERR_NO_MEMORY, "out of memory writing %s",
                                      output_target_path(output));
    w.fd = output_file_fd(output); /* which output_begin may have chosen */
    int err = status == APSP_OK ? write_cells(&w, matrix) : 0;
    free(w.buf);
    if (err)
        status = fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s",
                      output_target_path(output), strerror(err));
    if (status != APSP_OK) {
        apsp_output_abort(output);
        return status;
    }
    output_set_length(output, w.offset);
    return output_finish(output, error);
}
