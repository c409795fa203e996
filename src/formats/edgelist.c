/* Text edge lists (.txt, .edges, .el, .tsv), as SNAP and networkx.write_edgelist write them:
 *     # a comment (or % ...)
 *     u v        an edge of weight 1, or
 *     u v w      an edge of weight w: an integer ("5", "2.0"), or a fraction ("1.5", "2e-3")
 *                that makes the weights real where the read options' type takes them
 * Fields are separated by spaces or tabs; blank lines and comment lines may come anywhere.
 * Vertex ids are 0-based; V is the largest id + 1, or options->vertices (every id below it).
 * Every line has a weight or none: the first edge decides, and a line that differs is refused
 * (a missing weight is more likely a damaged line than a weight of 1). */
#include "base/graph.h"
#include "formats/readers.h"

#include <math.h>
#include <stddef.h>

typedef struct edgelist {
    text_input t;
    const apsp_read_options *options;
    apsp_graph *g;
    uint64_t first_line; /* the first edge's line: it decided whether lines have weights */
    int weighted;
    uint64_t largest_id;
    int64_t largest_weight; /* of the largest magnitude: checked against V at the end */
    uint64_t largest_weight_line;
    text_weight largest_real; /* the same for the real weights that stay real (is_real = 0: none) */
    uint64_t largest_real_line;
} edgelist;

static uint64_t most_id(const edgelist *l) {
    return l->options->vertices ? l->options->vertices - 1 : INT32_MAX - 1;
}

static apsp_status vertex(edgelist *l, const char *what, uint64_t *id, apsp_error *error) {
    text_input *t = &l->t;
    const char *start = t->p;
    apsp_status status = text_uint(t, what, UINT64_MAX, id, error);
    if (status == APSP_OK && *id > most_id(l)) {
        t->p = start;
        if (l->options->vertices)
            return text_fail(t, error, "%s %llu is out of range [0, %zu) (the vertex count)", what,
                             (unsigned long long)*id, l->options->vertices);
        return text_fail(t, error, "%s %llu is too large: ids are below %d", what,
                         (unsigned long long)*id, INT32_MAX);
    }
    return status;
}

static uint64_t magnitude(int64_t w) {
    return w < 0 ? -(uint64_t)w : (uint64_t)w;
}

/* Whether real weight a is larger in magnitude than b (which may be none yet). */
static int larger_real(const text_weight *a, const text_weight *b) {
    return a->is_real && (!b->is_real || fabs(a->real) > fabs(b->real));
}

static apsp_status weight(edgelist *l, text_weight *w, apsp_error *error) {
    text_input *t = &l->t;
    int has = !text_at_line_end(t);
    if (!l->first_line) {
        l->first_line = t->line;
        l->weighted = has;
    }
    if (has != l->weighted)
        return text_fail(t, error, "%s, but line %llu %s: every line must have a weight or none",
                         has ? "a weight" : "no weight", (unsigned long long)l->first_line,
                         l->weighted ? "has one" : "has none");
    /* An edge without a weight: 1, which still counts against the rule, with a huge V. */
    *w = (text_weight){.value = 1};
    apsp_status status = has ? text_number(t, "the weight", w, error) : APSP_OK;
    if (status == APSP_OK && w->is_real) {
        status = text_check_real(t, l->options, w, l->options->vertices, error);
        if (status == APSP_OK && larger_real(w, &l->largest_real)) {
            l->largest_real = *w;
            l->largest_real_line = t->line;
        }
        if (status != APSP_OK || read_takes_fractions(l->options))
            return status;
        /* Integer distances: a whole number written as a real is that integer (read.c). */
        *w = (text_weight){.value = (int64_t)w->real};
    }
    if (status == APSP_OK)
        status = text_check_weight(t, l->options, w->value, l->options->vertices, error);
    if (status == APSP_OK && magnitude(w->value) > magnitude(l->largest_weight)) {
        l->largest_weight = w->value;
        l->largest_weight_line = t->line;
    }
    return status;
}

static apsp_status edge_line(edgelist *l, apsp_error *error) {
    uint64_t u = 0, v = 0;
    text_weight w = {.value = 1};
    apsp_status status = vertex(l, "source vertex", &u, error);
    if (status == APSP_OK)
        status = vertex(l, "target vertex", &v, error);
    if (status == APSP_OK)
        status = weight(l, &w, error);
    if (status == APSP_OK)
        status = text_line_done(&l->t, l->weighted ? "the weight" : "the target vertex", error);
    if (status == APSP_OK)
        status = w.is_real ? graph_push_real(l->g, (int32_t)u, (int32_t)v, w.real, error)
                           : graph_push(l->g, (int32_t)u, (int32_t)v, w.value, error);
    l->largest_id = u > l->largest_id ? u : l->largest_id;
    l->largest_id = v > l->largest_id ? v : l->largest_id;
    return status;
}

static apsp_status edge_lines(void *reader, apsp_error *error) {
    edgelist *l = reader;
    apsp_status status = APSP_OK;
    while (status == APSP_OK && text_next_line(&l->t, "#%"))
        status = edge_line(l, error);
    return status;
}

static void merge_piece(void *reader, const void *piece) {
    edgelist *l = reader;
    const edgelist *part = piece;
    l->largest_id = part->largest_id > l->largest_id ? part->largest_id : l->largest_id;
    l->largest_weight = magnitude(part->largest_weight) > magnitude(l->largest_weight)
                            ? part->largest_weight
                            : l->largest_weight;
    if (larger_real(&part->largest_real, &l->largest_real))
        l->largest_real = part->largest_real;
}

static size_t vertex_count(const edgelist *l) {
    return l->options->vertices ? l->options->vertices : (size_t)l->largest_id + 1;
}

/* The weights of the largest magnitudes against the rule for V, which is known only at the end:
 * NULL when both fit, else why not, with *line set to the weight's line. */
static const char *weights_problem(const edgelist *l, char *why, size_t size, uint64_t *line) {
    if (l->options->flags & APSP_GRAPH_UNWEIGHTED)
        return NULL;
    *line = l->largest_weight_line;
    const char *problem =
        weight_problem(l->largest_weight, vertex_count(l), read_rule_dtype(l->options), why, size);
    if (problem || !l->largest_real.is_real || !read_takes_fractions(l->options))
        return problem;
    char written[TEXT_WRITTEN_BYTES];
    *line = l->largest_real_line;
    return real_weight_problem(l->largest_real.real,
                               text_written(&l->largest_real, written, sizeof written),
                               vertex_count(l), read_real_dtype(l->options), why, size);
}

static int weights_fit(const edgelist *l) {
    char why[320];
    uint64_t line;
    return !weights_problem(l, why, sizeof why, &line);
}

/* A body read in pieces passes finish() (else it is read again in order, for the line). */
static int accept_pieces(const void *reader) {
    return weights_fit(reader);
}

static const body_reader edge_body = {
    .size = sizeof(edgelist),
    .input_offset = offsetof(edgelist, t),
    .graph_offset = offsetof(edgelist, g),
    .edges_per_line = 1,
    .body = edge_lines,
    .merge = merge_piece,
    .accept = accept_pieces,
};

/* V is known only now, and with it the largest weight the rule allows. */
static apsp_status finish(edgelist *l, apsp_error *error) {
    text_input *t = &l->t;
    if (l->g->edges == 0 && !l->options->vertices)
        return text_fail(t, error,
                         "the end, and no edges: the vertex count is unknown (give it "
                         "with the vertices option, --vertices=N)");
    l->g->vertices = vertex_count(l);
    char why[320];
    uint64_t line;
    const char *problem = weights_problem(l, why, sizeof why, &line);
    if (!problem)
        return APSP_OK;
    t->line = line;
    return text_fail(t, error, "%s", problem);
}

apsp_status read_edgelist_graph(const char *path, const apsp_read_options *options,
                                apsp_graph **out, apsp_error *error) {
    edgelist l = {.options = options};
    *out = NULL;
    if (options->vertices > INT32_MAX)
        return fail(error, APSP_ERR_USAGE, "%zu vertices: at most %d are supported",
                    options->vertices, INT32_MAX);
    apsp_status status = text_open(path, &l.t, error);
    if (status == APSP_OK)
        status = apsp_graph_create(0, 0, &l.g, error);
    /* The first edge, in order: it decides whether lines have weights, for every piece. */
    if (status == APSP_OK && text_next_line(&l.t, "#%")) {
        status = edge_line(&l, error);
        if (status == APSP_OK)
            status = parse_body(&l, &edge_body, options->threads, error);
    }
    if (status == APSP_OK)
        status = finish(&l, error);
    text_free(&l.t);
    if (status != APSP_OK) {
        apsp_graph_destroy(l.g);
        l.g = NULL;
    }
    *out = l.g;
    return status;
}
