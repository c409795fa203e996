/* CSV and TSV edge lists of named vertices, as road and transit tables come:
 *     from,to,length
 *     Gare de Lyon,Bercy,1.2
 *     "Châtelet, Les Halles",4417391023,3
 * Fields are separated by commas (tsv: tabs); a field may be quoted as RFC 4180 says ("" for a
 * quote inside), and must be where it holds the separator or a quote. Every vertex is a name,
 * digits included: vertex ids are given in the order names are first seen (edge by edge, the
 * source's before the target's), and the names are the graph's labels. The header (csv_header.c)
 * says which columns hold the source, the target and the weight; other columns are skipped. A name
 * may not hold a line break (the labels file holds one name a line): a quoted field must close on
 * its line. Lines of a stream are at most 1 MiB. */
#include "base/fault.h"
#include "base/graph.h"
#include "formats/csv_header.h"
#include "formats/readers.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct csv_reader {
    text_input t;
    const apsp_read_options *options;
    apsp_graph *g;
    csv_columns columns;
    vertex_names *names;
    const void *self; /* the reader whose table `names` is: a piece's copy makes its own */
    size_t merged;    /* the edges whose ids merge_piece has made the whole table's */
    int merge_failed;
    weight_extremes extremes;
} csv_reader;

/* A line parsed, its names' slots prefetched, waiting for its lookups (edge_lines). */
typedef struct parsed_line {
    csv_field names[2]; /* source, target */
    vertex_key key[2];
    text_weight w;
    uint64_t line;
} parsed_line;

/* Lines parsed ahead of their lookups: a lookup in a table of many names is a cache miss (perf:
 * two thirds of a CSV read of 40000 names), which the prefetches of the lines after it overlap. */
enum { LINES_AHEAD = 8 };

/* The vertex of field f: its id in the reader's table, the name unquoted first where it holds
 * a doubled quote. */
static apsp_status vertex(csv_reader *r, const csv_field *f, vertex_key key, int32_t *id,
                          apsp_error *error) {
    char *plain = f->escaped ? apsp_malloc(f->len) : NULL;
    if (f->escaped && !plain)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->t.name);
    size_t len = plain ? csv_unquote(f, plain) : f->len;
    int64_t got = plain ? vertex_names_id(r->names, plain, len)
                        : vertex_names_id_keyed(r->names, f->start, len, key);
    free(plain);
    if (got == -1)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->t.name);
    if (got < 0)
        return text_fail(&r->t, error, "more than %d vertex names", INT32_MAX);
    *id = (int32_t)got;
    return APSP_OK;
}

/* The weight field, parsed as the edge list's (text_number) within the field's bytes. */
static apsp_status weight(csv_reader *r, const csv_field *f, text_weight *w, apsp_error *error) {
    text_input in = r->t;
    in.p = f->start;
    in.end = f->start + f->len;
    apsp_status status = text_number(&in, "the weight", w, error);
    if (status == APSP_OK && !text_at_line_end(&in))
        return text_fail(&r->t, error, "the weight field holds more than a number");
    return status == APSP_OK ? text_take_weight(&in, r->options, w, &r->extremes, error) : status;
}

/* The line's fields: its names keyed and their slots prefetched, its weight checked. */
static apsp_status parse_line(csv_reader *r, parsed_line *p, apsp_error *error) {
    const csv_columns *c = &r->columns;
    p->w = (text_weight){.value = 1}; /* (not the whole line: perf saw its zeroing, rep stos) */
    p->line = r->t.line;
    int last = 0;
    r->t.p = r->t.line_start; /* (text_next_line skipped leading blanks: a name may have them) */
    apsp_status status = APSP_OK;
    for (int i = 0; i < c->fields && status == APSP_OK; i++) {
        csv_field f;
        if (last)
            return csv_missing_field(&r->t, c, i, error);
        status = csv_next_field(&r->t, c->delimiter, &f, &last, error);
        if (i == c->index[0] || i == c->index[1])
            p->names[i == c->index[1]] = f;
        else if (status == APSP_OK && i == c->index[2])
            status = weight(r, &f, &p->w, error);
    }
    for (int k = 0; k < 2 && status == APSP_OK; k++) {
        if (p->names[k].len == 0)
            return text_fail(&r->t, error, "an empty vertex name");
        p->key[k] = vertex_names_key(p->names[k].start, p->names[k].len);
        vertex_names_prefetch(r->names, p->key[k]);
    }
    return status;
}

/* The parsed line's names looked up (at its line, for a message) and its edge appended. The
 * source's name first, then the target's, whatever the columns' order: vertices are numbered as
 * NetworkX adds them, edge by edge. */
static apsp_status resolve_line(csv_reader *r, const parsed_line *p, apsp_error *error) {
    int32_t ends[2] = {0, 0};
    uint64_t at = r->t.line;
    r->t.line = p->line;
    apsp_status status = APSP_OK;
    for (int k = 0; k < 2 && status == APSP_OK; k++)
        status = vertex(r, &p->names[k], p->key[k], &ends[k], error);
    r->t.line = at;
    if (status == APSP_OK)
        status = p->w.is_real ? graph_push_real(r->g, ends[0], ends[1], p->w.real, error)
                              : graph_push(r->g, ends[0], ends[1], p->w.value, error);
    return status;
}

static apsp_status edge_line(csv_reader *r, apsp_error *error) {
    parsed_line p;
    apsp_status status = parse_line(r, &p, error);
    return status == APSP_OK ? resolve_line(r, &p, error) : status;
}

/* The lines waiting in the ring resolved, in order; a problem of theirs comes before `status`
 * (a later line's, already in *error). */
static apsp_status resolve_waiting(csv_reader *r, parsed_line *ring, size_t head, size_t count,
                                   apsp_status status, apsp_error *error) {
    apsp_error earlier;
    for (size_t i = 0; i < count; i++) {
        apsp_status first = resolve_line(r, &ring[(head + i) % LINES_AHEAD], &earlier);
        if (first != APSP_OK) {
            if (error)
                *error = earlier;
            return first;
        }
    }
    return status;
}

static apsp_status edge_lines(void *reader, apsp_error *error) {
    csv_reader *r = reader;
    if (r->self != r) { /* a piece: names get ids of its own, made the table's by merge_piece */
        r->self = r;
        r->names = vertex_names_create();
        if (!r->names)
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->t.name);
    }
    parsed_line ring[LINES_AHEAD];
    size_t head = 0, count = 0;
    apsp_status status = APSP_OK;
    while (status == APSP_OK && text_next_line(&r->t, "")) {
        if (count == LINES_AHEAD) {
            status = resolve_line(r, &ring[head], error);
            if (status != APSP_OK)
                return status; /* (the lines after it wait in vain: this is the first problem) */
            head = (head + 1) % LINES_AHEAD;
            count--;
        }
        status = parse_line(r, &ring[(head + count) % LINES_AHEAD], error);
        count += status == APSP_OK;
    }
    return resolve_waiting(r, ring, head, count, status, error);
}

/* A piece's names into the whole table, in their order (which keeps the order of first sight:
 * the pieces come in order), and its edges' ids with them. A failure sends the body back to
 * the reader in order (accept_pieces), which finds the exact line. */
static void merge_piece(void *reader, const void *piece) {
    csv_reader *r = reader;
    const csv_reader *part = piece;
    size_t count = vertex_names_count(part->names), edges = part->g->edges;
    int32_t *map = r->merge_failed ? NULL : apsp_malloc((count + 1) * sizeof *map);
    for (size_t i = 0; map && i < count; i++) {
        size_t len;
        const char *name = vertex_names_at(part->names, i, &len);
        int64_t id = vertex_names_id(r->names, name, len);
        map[i] = (int32_t)id;
        r->merge_failed |= id < 0;
    }
    r->merge_failed |= !map;
    for (size_t e = r->merged; !r->merge_failed && e < r->merged + edges; e++) {
        r->g->source[e] = map[r->g->source[e]];
        r->g->target[e] = map[r->g->target[e]];
    }
    r->merged += edges;
    weight_extremes_merge(&r->extremes, &part->extremes);
    free(map);
}

static int weights_fit(const csv_reader *r) {
    char why[320];
    uint64_t line;
    return !weight_extremes_problem(&r->extremes, r->options, vertex_names_count(r->names), why,
                                    sizeof why, &line);
}

static int accept_pieces(const void *reader) {
    const csv_reader *r = reader;
    return !r->merge_failed && weights_fit(r);
}

static void release_piece(void *piece) {
    csv_reader *r = piece;
    if (r->self == r)
        vertex_names_destroy(r->names);
}

static const body_reader csv_body = {
    .size = sizeof(csv_reader),
    .input_offset = offsetof(csv_reader, t),
    .graph_offset = offsetof(csv_reader, g),
    .edges_per_line = 1,
    .body = edge_lines,
    .merge = merge_piece,
    .accept = accept_pieces,
    .release = release_piece,
};

/* The names, copied out of the input's buffer, as the graph's labels. */
static apsp_status keep_labels(csv_reader *r, apsp_error *error) {
    size_t count = vertex_names_count(r->names);
    char **labels = apsp_calloc(count, sizeof *labels);
    for (size_t i = 0; labels && i < count; i++) {
        size_t len;
        const char *name = vertex_names_at(r->names, i, &len);
        if (!(labels[i] = apsp_malloc(len + 1))) {
            while (i > 0)
                free(labels[--i]);
            free(labels);
            labels = NULL;
            break;
        }
        memcpy(labels[i], name, len);
        labels[i][len] = '\0';
    }
    if (!labels)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r->t.name);
    graph_set_labels(r->g, labels);
    return APSP_OK;
}

/* V is the names' count: the weights meet the rule for it now. */
static apsp_status finish(csv_reader *r, apsp_error *error) {
    if (r->g->edges == 0)
        return text_fail(&r->t, error,
                         "the end, and no edges: a CSV edge list names its vertices "
                         "in its edges");
    r->g->vertices = vertex_names_count(r->names);
    char why[320];
    uint64_t line;
    const char *problem =
        weight_extremes_problem(&r->extremes, r->options, r->g->vertices, why, sizeof why, &line);
    if (problem) {
        r->t.line = line;
        return text_fail(&r->t, error, "%s", problem);
    }
    return keep_labels(r, error);
}

/* The header (or the first edge, where there is none), then the body in pieces. */
static apsp_status read_lines(csv_reader *r, char delimiter, apsp_error *error) {
    if (!text_next_line(&r->t, ""))
        return text_fail(&r->t, error, "no header and no edges");
    r->t.p = r->t.line_start;
    int header = 0;
    apsp_status status =
        csv_read_header(&r->t, delimiter, r->options->columns, &r->columns, &header, error);
    if (status == APSP_OK && !header && (status = edge_line(r, error)) == APSP_ERR_INPUT && error) {
        size_t used = strnlen(error->message, sizeof error->message - 1);
        snprintf(error->message + used, sizeof error->message - used,
                 " (a header? name its columns: --columns=FROM,TO,WEIGHT)");
    }
    r->merged = r->g->edges;
    return status == APSP_OK ? parse_body(r, &csv_body, r->options->threads, error) : status;
}

static apsp_status read_separated(const char *path, const apsp_read_options *options,
                                  char delimiter, apsp_graph **out, apsp_error *error) {
    csv_reader r = {.options = options};
    r.self = &r;
    *out = NULL;
    if (options->vertices)
        return fail(error, APSP_ERR_USAGE,
                    "%s: a vertex count does not apply to a CSV or TSV edge list: its vertices are "
                    "the names in its edges",
                    path);
    apsp_status status = text_open(path, &r.t, CSV_LONGEST_LINE, error);
    if (status == APSP_OK && !(r.names = vertex_names_create()))
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", r.t.name);
    if (status == APSP_OK)
        status = apsp_graph_create(0, 0, &r.g, error);
    if (status == APSP_OK)
        status = read_lines(&r, delimiter, error);
    if (status == APSP_OK)
        status = finish(&r, error);
    vertex_names_destroy(r.names);
    text_free(&r.t);
    if (status != APSP_OK) {
        apsp_graph_destroy(r.g);
        r.g = NULL;
    }
    *out = r.g;
    return status;
}

apsp_status read_csv_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error) {
    return read_separated(path, options, ',', out, error);
}

apsp_status read_tsv_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                           apsp_error *error) {
    return read_separated(path, options, '\t', out, error);
}
