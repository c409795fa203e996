/* The hw3 format of the course: little-endian int32 V, E, then E triples (src, dst, w); the
 * output is V*V int32 row-major with APSP_INF for unreachable pairs.
 *
 * The reader trusts nothing in the file: it checks the header against the file size before
 * allocating, every endpoint and weight, and that the file ends exactly after the last edge.
 * A regular file is read in large blocks at their offsets by several threads, each decoding its
 * share of the edges into the graph's arrays; a pipe is read in order, the graph growing with
 * what arrives, so a stream that claims many edges and brings few costs only what it brings. */
#include "apsp.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/parallel.h"
#include "formats/input.h"
#include "output/output_file.h"
#include "formats/readers.h"
#include "formats/rows.h"
#include "base/element_types.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
    HEADER_BYTES = 8,
    EDGE_BYTES = 12,
    EDGES_PER_BLOCK = 1 << 16, /* 768 KiB: large reads, and a block stays in the cache */
    PARALLEL_EDGES = 1 << 19,  /* fewer are read on one thread */
};

static int32_t load_le32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

typedef struct hw3_reader {
    input_file in;
    int32_t vertices;
    int32_t edges;
    apsp_dtype dtype; /* the read options' type, whose rule the weights obey */
    weight_rule rule; /* (V - 1) * w must stay below its unreachable marker */
    int unweighted;   /* weights are not checked: they all become 1 */
    int header_text;  /* the header's bytes are text: an edge list or the like, not hw3 */
    int numpy;        /* the header's bytes begin as a .npy file's (npy.c) */
    unsigned char header[HEADER_BYTES];
    size_t header_got; /* of its bytes, those the input had */
    unsigned threads;  /* the read options' threads (0: one per core) */
    apsp_graph *g;
    atomic_llong first_bad; /* parallel reading: the least index of a bad edge; -1: none */
    atomic_int read_error;  /* parallel reading: an errno value, or -1 for a file that shrank */
} hw3_reader;

/* Printable ASCII and line breaks, as text formats begin ("0 1 5", "p sp", "%%Matrix"); a hw3
 * header of such bytes would claim V > 150 million. */
static int looks_like_text(const unsigned char *bytes, ssize_t count) {
    for (ssize_t i = 0; i < count; i++)
        if ((bytes[i] < 0x20 || bytes[i] > 0x7e) && bytes[i] != '\t' && bytes[i] != '\n' &&
            bytes[i] != '\r')
            return 0;
    return count > 0;
}

/* Any refusal of a file that starts with text says so (APSP_HW3_TEXT_HINT). */
static apsp_status hint_if_text(const hw3_reader *r, apsp_status status, apsp_error *error) {
    if (status == APSP_OK || !r->header_text || !error)
        return status;
    size_t used = strnlen(error->message, sizeof error->message - 1);
    snprintf(error->message + used, sizeof error->message - used, "%s", APSP_HW3_TEXT_HINT);
    return status;
}

/* The header, or the first bytes of a .npy file (r->numpy), which the caller hands on. */
static apsp_status read_header(hw3_reader *r, apsp_error *error) {
    unsigned char *header = r->header;
    ssize_t got = input_read(&r->in, header, HEADER_BYTES);
    if (got < 0)
        return input_read_error(&r->in, errno, error);
    r->header_text = looks_like_text(header, got);
    r->header_got = (size_t)got;
    r->numpy = npy_has_magic(header, (size_t)got);
    if (r->numpy)
        return APSP_OK;
    if (got < HEADER_BYTES)
        return fail(error, APSP_ERR_INPUT,
                    "%s: truncated header: the file has %zd bytes, the header needs 8", r->in.name,
                    got);
    r->vertices = load_le32(header);
    r->edges = load_le32(header + 4);
    if (r->vertices <= 0)
        return fail(error, APSP_ERR_INPUT,
                    "%s: byte offset 0: vertex count V = %d, it must be at least 1", r->in.name,
                    r->vertices);
    if (r->edges < 0)
        return fail(error, APSP_ERR_INPUT,
                    "%s: byte offset 4: edge count E = %d, it must not be negative", r->in.name,
                    r->edges);
    r->rule = weight_rule_for((size_t)r->vertices, r->dtype);
    return APSP_OK;
}

/* For a regular file the size tells at once whether the edge list is complete. (The header was
 * read, but the file may have been shorter when its size was taken.) */
static apsp_status check_file_size(const hw3_reader *r, apsp_error *error) {
    uint64_t size = r->in.size;
    uint64_t expected = HEADER_BYTES + (uint64_t)r->edges * EDGE_BYTES;
    if (size < expected) {
        uint64_t complete = size > HEADER_BYTES ? (size - HEADER_BYTES) / EDGE_BYTES : 0;
        return fail(error, APSP_ERR_INPUT,
                    "%s: truncated: E = %d edges need %llu bytes but the file has %llu; "
                    "edge %llu at byte offset %llu is incomplete or missing",
                    r->in.name, r->edges, (unsigned long long)expected, (unsigned long long)size,
                    (unsigned long long)complete,
                    (unsigned long long)(HEADER_BYTES + complete * EDGE_BYTES));
    }
    if (size > expected)
        return fail(error, APSP_ERR_INPUT,
                    "%s: %llu bytes of trailing garbage after the last of E = %d edges "
                    "(from byte offset %llu)",
                    r->in.name, (unsigned long long)(size - expected), r->edges,
                    (unsigned long long)expected);
    return APSP_OK;
}

static int edge_ok(const hw3_reader *r, int32_t src, int32_t dst, int32_t w) {
    return src >= 0 && src < r->vertices && dst >= 0 && dst < r->vertices &&
           (r->unweighted || (w >= r->rule.least && w <= r->rule.most));
}

static apsp_status refuse_edge(const hw3_reader *r, int64_t index, const unsigned char *p,
                               apsp_error *error) {
    int32_t src = load_le32(p), dst = load_le32(p + 4), w = load_le32(p + 8);
    unsigned long long offset = HEADER_BYTES + (unsigned long long)index * EDGE_BYTES;
    char why[320];
    if (src < 0 || src >= r->vertices)
        return fail(error, APSP_ERR_INPUT,
                    "%s: edge %lld at byte offset %llu: source vertex %d is out of range [0, %d)",
                    r->in.name, (long long)index, offset, src, r->vertices);
    if (dst < 0 || dst >= r->vertices)
        return fail(error, APSP_ERR_INPUT,
                    "%s: edge %lld at byte offset %llu: destination vertex %d is out of range "
                    "[0, %d)",
                    r->in.name, (long long)index, offset + 4, dst, r->vertices);
    return fail(error, APSP_ERR_INPUT, "%s: edge %lld at byte offset %llu: %s", r->in.name,
                (long long)index, offset + 8,
                weight_problem(w, (size_t)r->vertices, r->dtype, why, sizeof why));
}

/* Decodes `count` edges into the graph's arrays from index `first` on. Returns the index of
 * the first bad one, or -1. No library call per edge: the loop is loads and compares. */
static int64_t decode(hw3_reader *r, const unsigned char *edges, int64_t first, size_t count) {
    apsp_graph *g = r->g;
    for (size_t e = 0; e < count; e++) {
        const unsigned char *p = edges + e * EDGE_BYTES;
        int32_t src = load_le32(p), dst = load_le32(p + 4), w = load_le32(p + 8);
        if (!edge_ok(r, src, dst, w))
            return first + (int64_t)e;
        size_t at = (size_t)first + e;
        g->source[at] = src;
        g->target[at] = dst;
        g->weight[at] = r->unweighted ? 1 : w;
    }
    return -1;
}

static void note_bad_edge(hw3_reader *r, int64_t index) {
    long long seen = atomic_load(&r->first_bad);
    while ((seen < 0 || index < seen) &&
           !atomic_compare_exchange_weak(&r->first_bad, &seen, (long long)index)) {
    }
}

/* One thread's share of a regular file's edges [begin, end), block by block. */
static int read_slice(void *context, size_t begin, size_t end) {
    hw3_reader *r = context;
    unsigned char *block = apsp_malloc((size_t)EDGES_PER_BLOCK * EDGE_BYTES);
    if (!block)
        return ENOMEM;
    int err = 0;
    for (size_t e = begin; e < end && !err; e += EDGES_PER_BLOCK) {
        size_t count = end - e < EDGES_PER_BLOCK ? end - e : EDGES_PER_BLOCK;
        ssize_t got =
            input_pread(&r->in, block, count * EDGE_BYTES, HEADER_BYTES + (uint64_t)e * EDGE_BYTES);
        if (got != (ssize_t)(count * EDGE_BYTES)) {
            err = got < 0 ? errno : -1;
            atomic_store(&r->read_error, err);
            break;
        }
        int64_t bad = decode(r, block, (int64_t)e, count);
        if (bad >= 0) {
            note_bad_edge(r, bad);
            break; /* later edges of this share cannot be the first bad one */
        }
    }
    free(block);
    return err > 0 ? err : 0;
}

static apsp_status read_regular(hw3_reader *r, apsp_error *error) {
    apsp_status status = check_file_size(r, error);
    if (status == APSP_OK)
        status = apsp_graph_reserve(r->g, (size_t)r->edges, error);
    if (status != APSP_OK)
        return status;
    atomic_init(&r->first_bad, -1);
    atomic_init(&r->read_error, 0);
    unsigned threads = r->edges < PARALLEL_EDGES ? 1 : r->threads;
    int err = parallel_slices((size_t)r->edges, threads, read_slice, r);
    if (err == ENOMEM)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->in.name);
    int64_t bad = atomic_load(&r->first_bad);
    if (bad >= 0) {
        unsigned char edge[EDGE_BYTES];
        if (input_pread(&r->in, edge, EDGE_BYTES, HEADER_BYTES + (uint64_t)bad * EDGE_BYTES) ==
            EDGE_BYTES)
            return refuse_edge(r, bad, edge, error);
    }
    if (err || atomic_load(&r->read_error) || bad >= 0)
        return err > 0 ? input_read_error(&r->in, err, error)
                       : fail(error, APSP_ERR_INPUT, "%s: the file changed while it was read",
                              r->in.name);
    r->g->edges = (size_t)r->edges;
    return APSP_OK;
}

/* A pipe: blocks in order, then the check that nothing follows the last edge. */
static apsp_status read_stream(hw3_reader *r, apsp_error *error) {
    unsigned char *block = apsp_malloc((size_t)EDGES_PER_BLOCK * EDGE_BYTES);
    if (!block)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->in.name);
    apsp_status status = APSP_OK;
    int64_t done = 0;
    while (done < r->edges && status == APSP_OK) {
        size_t want =
            (size_t)(r->edges - done < EDGES_PER_BLOCK ? r->edges - done : EDGES_PER_BLOCK);
        ssize_t got = input_read(&r->in, block, want * EDGE_BYTES);
        if (got < 0) {
            status = input_read_error(&r->in, errno, error);
            break;
        }
        size_t whole = (size_t)got / EDGE_BYTES;
        status = apsp_graph_reserve(r->g, (size_t)done + whole, error);
        int64_t bad = status == APSP_OK ? decode(r, block, done, whole) : -1;
        if (bad >= 0)
            status = refuse_edge(r, bad, block + (size_t)(bad - done) * EDGE_BYTES, error);
        done += (int64_t)whole;
        r->g->edges = (size_t)done;
        if (status == APSP_OK && whole < want)
            status =
                fail(error, APSP_ERR_INPUT,
                     "%s: truncated: the file ends inside or before edge %lld "
                     "(byte offset %llu) of E = %d",
                     r->in.name, (long long)done,
                     (unsigned long long)(HEADER_BYTES + (uint64_t)done * EDGE_BYTES), r->edges);
    }
    ssize_t after = status == APSP_OK ? input_read(&r->in, block, 1) : 0;
    if (after < 0) /* (a compressed stream's end, checked here: its checksum, its trailer) */
        status = input_read_error(&r->in, errno, error);
    else if (after > 0)
        status = fail(error, APSP_ERR_INPUT,
                      "%s: trailing garbage after the last of E = %d edges (from byte offset "
                      "%llu)",
                      r->in.name, r->edges,
                      (unsigned long long)(HEADER_BYTES + (uint64_t)r->edges * EDGE_BYTES));
    free(block);
    return status;
}

/* A .npy file where hw3 was expected: read as one when the format came from its name (a .npy
 * file named .in, standard input), refused when the caller asked for hw3. */
static apsp_status read_numpy(hw3_reader *r, const apsp_read_options *options, apsp_error *error) {
    if (options->format != APSP_FORMAT_AUTO)
        return fail(error, APSP_ERR_INPUT,
                    "%s: starts as a NumPy .npy file does, not as hw3: read it as npy", r->in.name);
    return npy_read_graph(&r->in, r->header, r->header_got, options, &r->g, error);
}

apsp_status read_hw3_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error) {
    *out = NULL;
    hw3_reader r = {.unweighted = (options->flags & APSP_GRAPH_UNWEIGHTED) != 0,
                    .dtype = read_rule_dtype(options),
                    .threads = threads_of(options->threads)};
    apsp_status status = input_open(path, &r.in, error);
    if (status != APSP_OK)
        return status;
    status = read_header(&r, error);
    if (status == APSP_OK && r.numpy)
        status = read_numpy(&r, options, error);
    else if (status == APSP_OK)
        status = apsp_graph_create((size_t)r.vertices, 0, &r.g, error);
    if (status == APSP_OK && !r.numpy)
        status = r.in.regular ? read_regular(&r, error) : read_stream(&r, error);
    input_close(&r.in);
    if (status != APSP_OK) {
        apsp_graph_destroy(r.g);
        return hint_if_text(&r, status, error);
    }
    *out = r.g;
    return APSP_OK;
}

apsp_status apsp_hw3_vertices(const char *path, size_t *vertices, apsp_error *error) {
    struct stat st;
    *vertices = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return APSP_OK; /* a stream is read once, by apsp_read_hw3; errors are its to give */
    hw3_reader r = {0};
    apsp_status status = input_open(path, &r.in, error);
    if (status != APSP_OK)
        return status;
    if (!r.in.regular) { /* a size that is not the file's (procfs): read once, as a stream */
        input_close(&r.in);
        return APSP_OK;
    }
    status = read_header(&r, error);
    if (status == APSP_OK && r.numpy)
        status = npy_read_vertices(&r.in, r.header, r.header_got, vertices, error);
    else if (status == APSP_OK)
        status = check_file_size(&r, error);
    input_close(&r.in);
    if (r.numpy)
        return status;
    if (status == APSP_OK)
        *vertices = (size_t)r.vertices;
    return hint_if_text(&r, status, error);
}

apsp_status apsp_read_hw3(const char *path, apsp_matrix **out, apsp_error *error) {
    *out = NULL;
    apsp_read_options options;
    apsp_read_options_init(&options);
    options.format = APSP_FORMAT_HW3;
    apsp_graph *g;
    apsp_status status = apsp_read_graph(path, &options, &g, error);
    if (status != APSP_OK)
        return status;
    status = apsp_graph_to_matrix(g, out, error);
    apsp_graph_destroy(g);
    return status == APSP_OK ? status : fail_naming_input(error, status, path);
}

/* An int64 matrix goes to hw3 when every distance fits int32's: the first that does not, else
 * 0. */
static int wide_distance(const apsp_matrix *m, size_t *i_out, size_t *j_out) {
    for (size_t i = 0; i < m->n; i++) {
        const int64_t *row = apsp_matrix_row_cells(m, i);
        for (size_t j = 0; j < m->n; j++)
            if (row[j] < APSP_INF64 && (row[j] >= APSP_INF || row[j] <= -APSP_INF)) {
                *i_out = i;
                *j_out = j;
                return 1;
            }
    }
    return 0;
}

apsp_status apsp_output_commit_hw3(apsp_output *output, const apsp_matrix *matrix,
                                   apsp_error *error) {
    size_t i, j;
    apsp_status status = APSP_OK;
    if (element_is_real(matrix->dtype))
        status = fail(error, APSP_ERR_USAGE,
                      "%s: the hw3 format holds int32 distances, not %s ones: write .npy or "
                      "text instead",
                      output_target_path(output), apsp_dtype_name(matrix->dtype));
    else if (matrix->dtype == APSP_INT64 && wide_distance(matrix, &i, &j))
        status = fail(error, APSP_ERR_OUTPUT,
                      "%s: the hw3 format holds int32 distances, but the distance from %zu to "
                      "%zu is %" PRId64 ", beyond (-%d, %d): write .npy or text instead",
                      output_target_path(output), i, j,
                      ((const int64_t *)apsp_matrix_row_cells(matrix, i))[j], APSP_INF, APSP_INF);
    if (status != APSP_OK) {
        apsp_output_abort(output);
        return status;
    }
    return commit_rows(output, matrix, APSP_INT32, NULL, 0, error);
}

apsp_status apsp_write_hw3(const char *path, const apsp_matrix *matrix, apsp_error *error) {
    return apsp_write_matrix(path, APSP_FORMAT_HW3, matrix, error);
}
