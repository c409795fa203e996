/* The edge list every reader produces, and the padded matrix made from it. */
#include "base/graph.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/parallel.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    FIRST_CAPACITY = 1024,
    PARALLEL_EDGES = 1 << 18, /* fewer edges are checked and placed on one thread */
};

weight_rule weight_rule_for(size_t vertices) {
    weight_rule rule = {-INT32_MAX, INT32_MAX};
    if (vertices > 1)
        rule.most = (APSP_INF - 1) / (int64_t)(vertices - 1);
    if (vertices == 0)
        rule.most = INT64_MAX;
    rule.least = vertices == 0 ? INT64_MIN : vertices == 1 ? INT32_MIN : -rule.most;
    return rule;
}

const char *weight_problem(int64_t w, size_t vertices, char *buf, size_t size) {
    weight_rule rule = weight_rule_for(vertices);
    if (w < rule.least || w > rule.most)
        snprintf(buf, size,
                 "weight %" PRId64 " is too %s: with V = %zu, weights outside [%" PRId64
                 ", %" PRId64 "] could give distances that reach the unreachable marker %d",
                 w, w < 0 ? "negative" : "large", vertices, rule.least, rule.most, APSP_INF);
    else
        return NULL;
    return buf;
}

int graph_has_negative(const apsp_graph *g) {
    for (size_t e = 0; e < g->edges; e++)
        if (g->weight[e] < 0 && g->source[e] != g->target[e])
            return 1;
    return 0;
}

apsp_status apsp_graph_create(size_t vertices, size_t capacity, apsp_graph **out,
                              apsp_error *error) {
    *out = NULL;
    if (vertices > INT32_MAX)
        return fail(error, APSP_ERR_TOO_LARGE, "V = %zu: at most %d vertices are supported",
                    vertices, INT32_MAX);
    apsp_graph *g = apsp_calloc(1, sizeof *g);
    if (!g)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory creating a graph");
    g->vertices = vertices;
    apsp_status status = apsp_graph_reserve(g, capacity, error);
    if (status != APSP_OK) {
        apsp_graph_destroy(g);
        return status;
    }
    *out = g;
    return APSP_OK;
}

void apsp_graph_destroy(apsp_graph *graph) {
    if (!graph)
        return;
    free(graph->source);
    free(graph->target);
    free(graph->weight);
    free(graph);
}

apsp_status apsp_graph_reserve(apsp_graph *g, size_t edges, apsp_error *error) {
    if (edges <= g->capacity)
        return APSP_OK;
    if (edges > SIZE_MAX / sizeof(int64_t))
        return fail(error, APSP_ERR_TOO_LARGE, "%zu edges cannot be addressed", edges);
    /* Each array is replaced as soon as it has grown, so a failure leaves a consistent graph. */
    int32_t *source = apsp_realloc(g->source, edges * sizeof *source);
    if (source)
        g->source = source;
    int32_t *target = source ? apsp_realloc(g->target, edges * sizeof *target) : NULL;
    if (target)
        g->target = target;
    int64_t *weight = target ? apsp_realloc(g->weight, edges * sizeof *weight) : NULL;
    if (!weight)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory: an edge list of %zu edges", edges);
    g->weight = weight;
    g->capacity = edges;
    return APSP_OK;
}

apsp_status apsp_graph_append(apsp_graph *g, int32_t source, int32_t target, int64_t weight,
                              apsp_error *error) {
    if (g->edges == g->capacity) {
        size_t room = g->capacity < FIRST_CAPACITY ? FIRST_CAPACITY : 2 * g->capacity;
        apsp_status status = apsp_graph_reserve(g, room, error);
        if (status != APSP_OK)
            return status;
    }
    g->source[g->edges] = source;
    g->target[g->edges] = target;
    g->weight[g->edges] = weight;
    g->edges++;
    return APSP_OK;
}

/* Appends each edge the other way round; a self-loop is its own reverse. */
static apsp_status add_reverse_edges(apsp_graph *g, apsp_error *error) {
    size_t edges = g->edges, loops = 0;
    for (size_t e = 0; e < edges; e++)
        loops += g->source[e] == g->target[e];
    apsp_status status = apsp_graph_reserve(g, 2 * edges - loops, error);
    for (size_t e = 0; e < edges && status == APSP_OK; e++)
        if (g->source[e] != g->target[e])
            status = apsp_graph_append(g, g->target[e], g->source[e], g->weight[e], error);
    return status;
}

apsp_status apsp_graph_transform(apsp_graph *g, unsigned flags, apsp_error *error) {
    if (flags & ~(unsigned)(APSP_GRAPH_UNDIRECTED | APSP_GRAPH_UNWEIGHTED))
        return fail(error, APSP_ERR_USAGE, "graph transform: unknown flags 0x%x", flags);
    if (flags & APSP_GRAPH_UNWEIGHTED)
        for (size_t e = 0; e < g->edges; e++)
            g->weight[e] = 1;
    return flags & APSP_GRAPH_UNDIRECTED ? add_reverse_edges(g, error) : APSP_OK;
}

/* ---- the matrix ---------------------------------------------------------------------------- */

typedef struct edge_scan {
    const apsp_graph *g;
    apsp_matrix *m;
    weight_rule rule;
    atomic_size_t first_bad; /* the least index of an edge that breaks a rule; SIZE_MAX: none */
} edge_scan;

static int edge_ok(const edge_scan *s, size_t e) {
    const apsp_graph *g = s->g;
    int32_t n = (int32_t)g->vertices;
    return g->source[e] >= 0 && g->source[e] < n && g->target[e] >= 0 && g->target[e] < n &&
           g->weight[e] >= s->rule.least && g->weight[e] <= s->rule.most;
}

static int check_edges(void *context, size_t begin, size_t end) {
    edge_scan *s = context;
    for (size_t e = begin; e < end; e++) {
        if (edge_ok(s, e))
            continue;
        size_t seen = atomic_load(&s->first_bad);
        while (e < seen && !atomic_compare_exchange_weak(&s->first_bad, &seen, e)) {
        }
        break;
    }
    return 0;
}

static apsp_status refuse_edge(const apsp_graph *g, size_t e, apsp_error *error) {
    char why[256];
    const char *problem = weight_problem(g->weight[e], g->vertices, why, sizeof why);
    int32_t bad =
        g->source[e] < 0 || (size_t)g->source[e] >= g->vertices ? g->source[e] : g->target[e];
    if (!problem)
        snprintf(why, sizeof why, "%s vertex %d is out of range [0, %zu)",
                 bad == g->source[e] ? "source" : "target", bad, g->vertices);
    return fail(error, APSP_ERR_USAGE, "graph edge %zu: %s", e, problem ? problem : why);
}

/* Rows [begin, end) get their edges: each slice reads the whole list and keeps the edges that
 * leave its rows, so no two threads write one cell and duplicates keep the least weight. */
static int place_edges(void *context, size_t begin, size_t end) {
    const edge_scan *s = context;
    const apsp_graph *g = s->g;
    for (size_t e = 0; e < g->edges; e++) {
        size_t i = (size_t)g->source[e];
        int32_t j = g->target[e];
        if (i < begin || i >= end || (int32_t)i == j)
            continue; /* another slice's row, or a self-loop (the diagonal stays 0) */
        int32_t *cell = apsp_matrix_row(s->m, i) + j;
        if (g->weight[e] < *cell)
            *cell = (int32_t)g->weight[e];
    }
    return 0;
}

apsp_status graph_check(const apsp_graph *g, apsp_error *error) {
    if (!g || (g->edges > 0 && (!g->source || !g->target || !g->weight)))
        return fail(error, APSP_ERR_USAGE, "no graph, or a graph without its edge arrays");
    if (g->vertices == 0 || g->vertices > INT32_MAX)
        return fail(error, g->vertices ? APSP_ERR_TOO_LARGE : APSP_ERR_USAGE,
                    "V = %zu: from 1 to %d vertices are supported", g->vertices, INT32_MAX);
    edge_scan s = {.g = g, .rule = weight_rule_for(g->vertices), .first_bad = SIZE_MAX};
    parallel_slices(g->edges, g->edges < PARALLEL_EDGES ? 1 : 0, check_edges, &s);
    if (atomic_load(&s.first_bad) != SIZE_MAX)
        return refuse_edge(g, atomic_load(&s.first_bad), error);
    return APSP_OK;
}

apsp_status apsp_graph_to_matrix(const apsp_graph *g, apsp_matrix **out, apsp_error *error) {
    *out = NULL;
    apsp_status status = graph_check(g, error);
    if (status != APSP_OK)
        return status;
    edge_scan s = {.g = g};
    unsigned threads = g->edges < PARALLEL_EDGES ? 1 : 0;
    status = apsp_matrix_create(g->vertices, &s.m, error);
    if (status != APSP_OK)
        return status;
    parallel_slices(g->vertices, threads, place_edges, &s);
    *out = s.m;
    return APSP_OK;
}
