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

#include <stddef.h>

typedef struct edgelist {
    text_input t;
    const apsp_read_options *options;
    apsp_graph *g;
    uint64_t first_line; /* the first edge's line: it decided whether lines have weights */
    int weighted;
    uint64_t largest_id;
    weight_extremes extremes; /* checked against V at the end */
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
    return status == APSP_OK ? text_take_weight(t, l->options, w, &l->extremes, error) : status;
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
    weight_extremes_merge(&l->extremes, &part->extremes);
}

static size_t vertex_count(const edgelist *l) {
    return l->options->vertices ? l->options->vertices : (size_t)l->largest_id + 1;
}

static int weights_fit(const edgelist *l) {
    char why[320];
    uint64_t line;
    return !weight_extremes_problem(&l->extremes, l->options, vertex_count(l), why, sizeof why,
                                    &line);
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
    const char *problem =
        weight_extremes_problem(&l->extremes, l->options, vertex_count(l), why, sizeof why, &line);
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
    apsp_status status = text_open(path, &l.t, 0, error);
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
