/* The NumPy format (.npy): the distances written, and a dense graph read (below). The output is
 * format version 1.0 as numpy.lib.format writes it: the magic "\x93NUMPY", version 1 0, a
 * little-endian uint16 header length, then a Python dict literal
 * {'descr': '<i4', 'fortran_order': False, 'shape': (V, V), } padded with spaces and a final
 * newline so that the data starts at a multiple of 64 bytes (NumPy's own alignment, which lets
 * numpy.load(..., mmap_mode='r') map it). The descr is the matrix's type: '<i4' (the hw3
 * output's bytes), '<i8', '<f4' or '<f8'. */
#include "base/element_types.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "formats/formats.h"
#include "formats/readers.h"
#include "formats/rows.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NPY_ALIGN = 64, NPY_PREAMBLE = 10, NPY_HEADER_MAX = 256 }; /* (the writer's header) */

static const char npy_magic[NPY_MAGIC_BYTES + 1] = "\x93NUMPY";

/* NumPy's name of the type, little-endian: '<', its kind ('i' or 'f') and its bytes. */
static const char *npy_descr(apsp_dtype dtype, char out[4]) {
    snprintf(out, 4, "<%c%zu", element_is_real(dtype) ? 'f' : 'i', apsp_dtype_size(dtype));
    return out;
}

/* The whole header, preamble included; returns its length (a multiple of NPY_ALIGN). */
size_t npy_header(size_t n, apsp_dtype dtype, char out[NPY_HEADER_MAX]) {
    return npy_header_rows(n, n, dtype, out);
}

size_t npy_header_rows(size_t rows, size_t columns, apsp_dtype dtype, char out[NPY_HEADER_MAX]) {
    char dict[128], descr[4];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }",
                       npy_descr(dtype, descr), rows, columns);
    size_t total = NPY_PREAMBLE + (size_t)len + 1; /* + the newline */
    total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    size_t header_len = total - NPY_PREAMBLE;
    memcpy(out, npy_magic, NPY_MAGIC_BYTES);
    out[6] = 1; /* version 1.0 */
    out[7] = 0;
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

/* The .npy input: a square 2-D array in C order of '<i4', '<i8', '<f4' or '<f8' (format
 * versions 1.0 to 3.0), read as SciPy reads a dense graph (the Python package's
 * _edges_of_dense): cell (i, j) is the edge i -> j, except 0 and, in a float array, inf, -inf
 * and nan, which are no edge; the diagonal is ignored. Weights are checked as the text readers
 * check theirs: a whole value is an integer weight, a fraction a real one. The cells are read in
 * blocks in order, from a file or a stream alike, so a header that claims a huge matrix costs only
 * what the input brings. */

enum {
    NPY_HEADER_MOST = 1 << 16, /* NumPy's own reader stops at 10000 bytes */
    NPY_BLOCK_CELLS = 1 << 16,
};

typedef struct npy_reader {
    input_file *in;
    const unsigned char *head; /* bytes the hw3 reader read already */
    size_t head_bytes, head_used;
    uint64_t offset;     /* bytes consumed, for messages */
    uint64_t data_start; /* the first cell's byte offset */
    const apsp_read_options *options;
    size_t n;    /* the matrix is n x n */
    char kind;   /* 'i' or 'f' */
    size_t item; /* 4 or 8 bytes a cell */
    apsp_graph *g;
} npy_reader;

int npy_has_magic(const unsigned char *bytes, size_t count) {
    return count >= NPY_MAGIC_BYTES && memcmp(bytes, npy_magic, NPY_MAGIC_BYTES) == 0;
}

/* The next `size` bytes of the input (those the hw3 reader read first), or fewer at its end. */
static ssize_t npy_read(npy_reader *r, void *buf, size_t size) {
    size_t from_head = r->head_bytes - r->head_used < size ? r->head_bytes - r->head_used : size;
    if (from_head > 0)
        memcpy(buf, r->head + r->head_used, from_head);
    r->head_used += from_head;
    ssize_t got =
        from_head < size ? input_read(r->in, (char *)buf + from_head, size - from_head) : 0;
    if (got < 0)
        return got;
    r->offset += from_head + (size_t)got;
    return (ssize_t)(from_head + (size_t)got);
}

static apsp_status npy_bad_header(const npy_reader *r, const char *why, apsp_error *error) {
    return fail(error, APSP_ERR_INPUT, "%s: not a .npy file apsp can read: %s", r->in->name, why);
}

/* The preamble: magic, version, header length. */
static apsp_status npy_read_preamble(npy_reader *r, size_t *header_bytes, apsp_error *error) {
    unsigned char pre[12];
    ssize_t got = npy_read(r, pre, 10);
    if (got < 0)
        return input_read_error(r->in, errno, error);
    if (got < 10 || !npy_has_magic(pre, (size_t)got))
        return npy_bad_header(r, "the file ends inside its preamble", error);
    if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0)
        return fail(error, APSP_ERR_INPUT,
                    "%s: .npy format version %d.%d: apsp reads versions 1.0, 2.0 and 3.0",
                    r->in->name, pre[6], pre[7]);
    *header_bytes = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (pre[6] > 1) { /* 2.0 and 3.0: a 4-byte length */
        if (npy_read(r, pre + 10, 2) != 2)
            return npy_bad_header(r, "the file ends inside its preamble", error);
        *header_bytes |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    if (*header_bytes > NPY_HEADER_MOST)
        return fail(error, APSP_ERR_INPUT, "%s: a .npy header of %zu bytes: at most %d are read",
                    r->in->name, *header_bytes, NPY_HEADER_MOST);
    return APSP_OK;
}

/* The header's dictionary, as numpy.lib.format writes it (a Python literal):
 * {'descr': '<i4', 'fortran_order': False, 'shape': (3, 3), } in any order. */
typedef struct npy_header_fields {
    char descr[16];
    int fortran, dims, seen; /* seen: a bit per key */
    uint64_t shape[2];
} npy_header_fields;

static const char *skip_blanks(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A quoted string into out; NULL unless p holds one that fits. */
static const char *take_string(const char *p, char *out, size_t size) {
    char quote = *p;
    if (quote != '\'' && quote != '"')
        return NULL;
    size_t n = 0;
    for (p++; *p && *p != quote; p++)
        if (n + 1 < size)
            out[n++] = *p;
        else
            return NULL;
    out[n] = '\0';
    return *p == quote ? p + 1 : NULL;
}

/* A tuple of non-negative integers, "(3, 3)", "(9,)" or "()"; every dimension counted, the
 * first two kept. */
static const char *take_shape(const char *p, npy_header_fields *h) {
    if (*p != '(')
        return NULL;
    p = skip_blanks(p + 1);
    while (*p != ')') {
        uint64_t v = 0;
        const char *digits = p;
        for (; *p >= '0' && *p <= '9'; p++)
            v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(*p - '0');
        if (p == digits)
            return NULL;
        if (h->dims < 2)
            h->shape[h->dims] = v;
        h->dims++;
        p = skip_blanks(p);
        if (*p == ',')
            p = skip_blanks(p + 1);
        else if (*p != ')')
            return NULL;
    }
    return p + 1;
}

static const char *take_value(const char *p, const char *key, npy_header_fields *h) {
    if (strcmp(key, "descr") == 0) {
        h->seen |= 1;
        return take_string(p, h->descr, sizeof h->descr);
    }
    if (strcmp(key, "fortran_order") == 0) {
        h->seen |= 2;
        h->fortran = strncmp(p, "True", 4) == 0;
        return h->fortran || strncmp(p, "False", 5) == 0 ? p + (h->fortran ? 4 : 5) : NULL;
    }
    if (strcmp(key, "shape") == 0) {
        h->seen |= 4;
        return take_shape(p, h);
    }
    return NULL;
}

/* 0 when the text is a dictionary of exactly the three keys; else -1. */
static int parse_header(const char *text, npy_header_fields *h) {
    const char *p = skip_blanks(text);
    if (*p++ != '{')
        return -1;
    for (p = skip_blanks(p); *p != '}'; p = skip_blanks(p)) {
        char key[16];
        if (!(p = take_string(p, key, sizeof key)))
            return -1;
        p = skip_blanks(p);
        if (*p != ':' || !(p = take_value(skip_blanks(p + 1), key, h)))
            return -1;
        p = skip_blanks(p);
        if (*p == ',')
            p++;
        else if (*p != '}')
            return -1;
    }
    return h->seen == 7 && *skip_blanks(p + 1) == '\0' ? 0 : -1;
}

/* What the header says, or a refusal naming what apsp does not read. */
static apsp_status npy_check_fields(npy_reader *r, const npy_header_fields *h, apsp_error *error) {
    char descr[4];
    int d = 0;
    while (d < ELEMENT_TYPE_COUNT && strcmp(h->descr, npy_descr((apsp_dtype)d, descr)) != 0)
        d++;
    if (d == ELEMENT_TYPE_COUNT)
        return fail(error, APSP_ERR_INPUT,
                    "%s: a .npy array of dtype '%s': apsp reads little-endian int32, int64, "
                    "float32 and float64 ('<i4', '<i8', '<f4', '<f8'): convert it with "
                    "astype",
                    r->in->name, h->descr);
    if (h->dims != 2)
        return fail(error, APSP_ERR_INPUT,
                    "%s: a .npy array of %d dimension%s: a graph is a square 2-D matrix, "
                    "V x V",
                    r->in->name, h->dims, h->dims == 1 ? "" : "s");
    if (h->shape[0] != h->shape[1] || h->shape[0] == 0)
        return fail(error, APSP_ERR_INPUT,
                    "%s: a .npy array of shape (%llu, %llu): a graph is a square V x V matrix "
                    "with V >= 1",
                    r->in->name, (unsigned long long)h->shape[0], (unsigned long long)h->shape[1]);
    if (h->fortran)
        return fail(error, APSP_ERR_INPUT,
                    "%s: a .npy array in Fortran order: save it in C order "
                    "(numpy.ascontiguousarray)",
                    r->in->name);
    if (h->shape[0] > INT32_MAX)
        return fail(error, APSP_ERR_TOO_LARGE, "%s: V = %llu: at most %d vertices are supported",
                    r->in->name, (unsigned long long)h->shape[0], INT32_MAX);
    r->n = (size_t)h->shape[0];
    r->kind = h->descr[1];
    r->item = (size_t)(h->descr[2] - '0');
    return APSP_OK;
}

static apsp_status npy_read_header(npy_reader *r, apsp_error *error) {
    size_t bytes = 0;
    apsp_status status = npy_read_preamble(r, &bytes, error);
    if (status != APSP_OK)
        return status;
    char *text = apsp_malloc(bytes + 1);
    if (!text)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->in->name);
    ssize_t got = npy_read(r, text, bytes);
    npy_header_fields h = {0};
    if (got >= 0)
        text[got] = '\0';
    if (got < 0)
        status = input_read_error(r->in, errno, error);
    else if ((size_t)got < bytes)
        status = npy_bad_header(r, "the file ends inside its header", error);
    else if (strlen(text) != bytes || parse_header(text, &h) != 0)
        status = npy_bad_header(r,
                                "its header is not the dictionary of 'descr', 'fortran_order' "
                                "and 'shape' that numpy.save writes",
                                error);
    else
        status = npy_check_fields(r, &h, error);
    free(text);
    return status;
}

/* A regular file's size tells at once whether the cells are all there. */
static apsp_status npy_check_size(const npy_reader *r, apsp_error *error) {
    if (!r->in->regular)
        return APSP_OK;
    uint64_t have = r->in->size > r->offset ? r->in->size - r->offset : 0;
    uint64_t cells = (uint64_t)r->n * r->n;
    if (have / r->item < cells)
        return fail(error, APSP_ERR_INPUT,
                    "%s: truncated: a %zu x %zu matrix needs %llu bytes after the header (from "
                    "byte offset %llu), and the file has %llu",
                    r->in->name, r->n, r->n, (unsigned long long)(cells * r->item),
                    (unsigned long long)r->offset, (unsigned long long)have);
    if (have > cells * r->item)
        return fail(error, APSP_ERR_INPUT,
                    "%s: %llu bytes of trailing garbage after the %zu x %zu matrix (from byte "
                    "offset %llu)",
                    r->in->name, (unsigned long long)(have - cells * r->item), r->n, r->n,
                    (unsigned long long)(r->offset + cells * r->item));
    return APSP_OK;
}

static int64_t load_le_int(const unsigned char *p, size_t item) {
    uint64_t v = 0;
    for (size_t b = item; b-- > 0;)
        v = v << 8 | p[b];
    return item == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static double load_le_float(const unsigned char *p, size_t item) {
    uint64_t bits = (uint64_t)load_le_int(p, item);
    if (item == 8) {
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    uint32_t narrow = (uint32_t)bits;
    float f;
    memcpy(&f, &narrow, sizeof f);
    return f;
}

/* Cell (i, j) as an edge, checked as the text readers check a weight. */
static apsp_status npy_cell(npy_reader *r, const unsigned char *p, size_t i, size_t j,
                            apsp_error *error) {
    int64_t whole = r->kind == 'i' ? load_le_int(p, r->item) : 0;
    double real = r->kind == 'f' ? load_le_float(p, r->item) : 0;
    if (i == j || (r->kind == 'i' ? whole == 0 : real == 0 || !isfinite(real)))
        return APSP_OK; /* no edge: SciPy's dense meaning */
    int is_real = r->kind == 'f' && !(fabs(real) < 0x1p63 && (double)(int64_t)real == real);
    if (r->kind == 'f' && !is_real)
        whole = (int64_t)real; /* a whole number is an integer weight, as "2.0" in a text file */
    char why[320];
    const char *problem = NULL;
    if (!(r->options->flags & APSP_GRAPH_UNWEIGHTED))
        problem = is_real
                      ? real_weight_problem(real, NULL, r->n, read_real_dtype(r->options), why,
                                            sizeof why)
                      : weight_problem(whole, r->n, read_rule_dtype(r->options), why, sizeof why);
    if (problem)
        return fail(
            error, APSP_ERR_INPUT, "%s: row %zu, column %zu (byte offset %llu): %s", r->in->name, i,
            j, (unsigned long long)(r->data_start + ((uint64_t)i * r->n + j) * r->item), problem);
    return is_real ? graph_push_real(r->g, (int32_t)i, (int32_t)j, real, error)
                   : graph_push(r->g, (int32_t)i, (int32_t)j, whole, error);
}

/* The cells in blocks, in order; then the check that nothing follows them. */
static apsp_status npy_read_cells(npy_reader *r, apsp_error *error) {
    unsigned char *block = apsp_malloc(NPY_BLOCK_CELLS * r->item);
    if (!block)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->in->name);
    apsp_status status = APSP_OK;
    uint64_t total = (uint64_t)r->n * r->n, done = 0;
    while (done < total && status == APSP_OK) {
        size_t want = total - done < NPY_BLOCK_CELLS ? (size_t)(total - done) : NPY_BLOCK_CELLS;
        ssize_t got = npy_read(r, block, want * r->item);
        if (got < 0) {
            status = input_read_error(r->in, errno, error);
            break;
        }
        size_t cells = (size_t)got / r->item;
        /* The row and column counted along, not divided out: a division a cell costs as much
         * as the rest of the cell's work. */
        size_t i = (size_t)(done / r->n), j = (size_t)(done % r->n);
        for (size_t k = 0; k < cells && status == APSP_OK; k++) {
            status = npy_cell(r, block + k * r->item, i, j, error);
            if (++j == r->n) {
                j = 0;
                i++;
            }
        }
        done += cells;
        if (status == APSP_OK && cells < want)
            status = fail(error, APSP_ERR_INPUT,
                          "%s: truncated: the file ends inside or before row %zu, column %zu "
                          "(byte offset %llu) of the %zu x %zu matrix",
                          r->in->name, (size_t)(done / r->n), (size_t)(done % r->n),
                          (unsigned long long)(r->data_start + done * r->item), r->n, r->n);
    }
    if (status == APSP_OK && npy_read(r, block, 1) != 0)
        status =
            fail(error, APSP_ERR_INPUT,
                 "%s: trailing garbage after the %zu x %zu matrix (from byte offset %llu)",
                 r->in->name, r->n, r->n, (unsigned long long)(r->data_start + total * r->item));
    free(block);
    return status;
}

/* The header read and, for a regular file, checked against the size: what both entries do. */
static apsp_status npy_start(npy_reader *r, apsp_error *error) {
    apsp_status status = npy_read_header(r, error);
    r->data_start = r->offset;
    return status == APSP_OK ? npy_check_size(r, error) : status;
}

apsp_status npy_read_vertices(input_file *in, const unsigned char *head, size_t head_bytes,
                              size_t *vertices, apsp_error *error) {
    npy_reader r = {.in = in, .head = head, .head_bytes = head_bytes};
    apsp_status status = npy_start(&r, error);
    *vertices = status == APSP_OK ? r.n : 0;
    return status;
}

apsp_status npy_read_graph(input_file *in, const unsigned char *head, size_t head_bytes,
                           const apsp_read_options *options, apsp_graph **out, apsp_error *error) {
    npy_reader r = {.in = in, .head = head, .head_bytes = head_bytes, .options = options};
    *out = NULL;
    apsp_status status = npy_start(&r, error);
    if (status == APSP_OK)
        status = apsp_graph_create(r.n, 0, &r.g, error);
    if (status == APSP_OK)
        status = npy_read_cells(&r, error);
    if (status != APSP_OK)
        apsp_graph_destroy(r.g);
    else
        *out = r.g;
    return status;
}

apsp_status read_npy_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error) {
    input_file in;
    *out = NULL;
    apsp_status status = input_open(path, &in, error);
    if (status != APSP_OK)
        return status;
    status = npy_read_graph(&in, NULL, 0, options, out, error);
    input_close(&in);
    return status;
}
