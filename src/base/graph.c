/* The edge list every reader produces: growing it, real weights, its transforms. The matrix made
 * from it and the weight rules are graph_matrix.c's. */
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"

#include <stdlib.h>

enum { FIRST_CAPACITY = 1024 };

uint64_t graph_largest_weight(const apsp_graph *g) {
    if (g->real_weight)
        return UINT64_MAX;
    uint64_t most = 0;
    for (size_t e = 0; e < g->edges; e++) {
        int64_t w = g->weight[e];
        uint64_t magnitude = w < 0 ? (uint64_t)0 - (uint64_t)w : (uint64_t)w;
        if (g->source[e] != g->target[e] && magnitude > most)
            most = magnitude;
    }
    return most;
}

int graph_has_negative(const apsp_graph *g) {
    for (size_t e = 0; e < g->edges; e++)
        if (graph_weight_real(g, e) < 0 && g->source[e] != g->target[e])
            return 1;
    return 0;
}

/* A graph with what the public struct has no room for: its vertices' names. Every graph is made
 * by apsp_graph_create, so every apsp_graph is the first member of one. */
typedef struct graph_box {
    apsp_graph graph;
    char **labels; /* V names, each its own allocation */
    size_t label_count;
} graph_box;

static graph_box *box_of(const apsp_graph *g) {
    return (graph_box *)g;
}

const char *const *apsp_graph_labels(const apsp_graph *graph) {
    return graph ? (const char *const *)box_of(graph)->labels : NULL;
}

void graph_set_labels(apsp_graph *graph, char **labels) {
    graph_box *box = box_of(graph);
    for (size_t i = 0; box->labels && i < box->label_count; i++)
        free(box->labels[i]);
    free(box->labels);
    box->labels = labels;
    box->label_count = labels ? graph->vertices : 0;
}

apsp_status apsp_graph_create(size_t vertices, size_t capacity, apsp_graph **out,
                              apsp_error *error) {
    *out = NULL;
    if (vertices > INT32_MAX)
        return fail(error, APSP_ERR_TOO_LARGE, "V = %zu: at most %d vertices are supported",
                    vertices, INT32_MAX);
    graph_box *box = apsp_calloc(1, sizeof *box);
    apsp_graph *g = box ? &box->graph : NULL;
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
    free(graph->real_weight);
    graph_set_labels(graph, NULL);
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
    int grown = 0;
    if (target && g->real_weight) {
        double *real = apsp_realloc(g->real_weight, edges * sizeof *real);
        if ((grown = real != NULL))
            g->real_weight = real;
    } else if (target) {
        int64_t *weight = apsp_realloc(g->weight, edges * sizeof *weight);
        if ((grown = weight != NULL))
            g->weight = weight;
    }
    if (!grown)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory: an edge list of %zu edges", edges);
    g->capacity = edges;
    return APSP_OK;
}

/* Room for one more edge, doubling. */
static apsp_status make_room(apsp_graph *g, apsp_error *error) {
    if (g->edges < g->capacity)
        return APSP_OK;
    size_t room = g->capacity < FIRST_CAPACITY ? FIRST_CAPACITY : 2 * g->capacity;
    return apsp_graph_reserve(g, room, error);
}

apsp_status apsp_graph_append(apsp_graph *g, int32_t source, int32_t target, int64_t weight,
                              apsp_error *error) {
    apsp_status status = make_room(g, error);
    if (status != APSP_OK)
        return status;
    g->source[g->edges] = source;
    g->target[g->edges] = target;
    if (g->real_weight)
        g->real_weight[g->edges] = (double)weight;
    else
        g->weight[g->edges] = weight;
    g->edges++;
    return APSP_OK;
}

apsp_status graph_make_real(apsp_graph *g, apsp_error *error) {
    if (g->real_weight)
        return APSP_OK;
    double *real = apsp_malloc((g->capacity ? g->capacity : 1) * sizeof *real);
    if (!real)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory: real weights for %zu edges",
                    g->capacity);
    for (size_t e = 0; e < g->edges; e++)
        real[e] = (double)g->weight[e];
    free(g->weight);
    g->weight = NULL;
    g->real_weight = real;
    return APSP_OK;
}

apsp_status apsp_graph_append_real(apsp_graph *g, int32_t source, int32_t target, double weight,
                                   apsp_error *error) {
    apsp_status status = graph_make_real(g, error);
    if (status == APSP_OK)
        status = make_room(g, error);
    if (status != APSP_OK)
        return status;
    g->source[g->edges] = source;
    g->target[g->edges] = target;
    g->real_weight[g->edges] = weight;
    g->edges++;
    return APSP_OK;
}

/* Appends each edge the other way round, with its weight; a self-loop is its own reverse. */
static apsp_status add_reverse_edges(apsp_graph *g, apsp_error *error) {
    size_t edges = g->edges, loops = 0;
    for (size_t e = 0; e < edges; e++)
        loops += g->source[e] == g->target[e];
    apsp_status status = apsp_graph_reserve(g, 2 * edges - loops, error);
    for (size_t e = 0; e < edges && status == APSP_OK; e++) {
        if (g->source[e] == g->target[e])
            continue;
        g->source[g->edges] = g->target[e];
        g->target[g->edges] = g->source[e];
        if (g->real_weight)
            g->real_weight[g->edges] = g->real_weight[e];
        else
            g->weight[g->edges] = g->weight[e];
        g->edges++;
    }
    return status;
}

/* Every weight 1: integer weights again, whatever they were. */
static apsp_status make_unweighted(apsp_graph *g, apsp_error *error) {
    if (g->real_weight) {
        int64_t *weight = apsp_malloc((g->capacity ? g->capacity : 1) * sizeof *weight);
        if (!weight)
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory: weights for %zu edges",
                        g->capacity);
        free(g->real_weight);
        g->real_weight = NULL;
        g->weight = weight;
    }
    for (size_t e = 0; e < g->edges; e++)
        g->weight[e] = 1;
    return APSP_OK;
}

apsp_status apsp_graph_transform(apsp_graph *g, unsigned flags, apsp_error *error) {
    if (flags & ~(unsigned)(APSP_GRAPH_UNDIRECTED | APSP_GRAPH_UNWEIGHTED))
        return fail(error, APSP_ERR_USAGE, "graph transform: unknown flags 0x%x", flags);
    apsp_status status = flags & APSP_GRAPH_UNWEIGHTED ? make_unweighted(g, error) : APSP_OK;
    if (status == APSP_OK && (flags & APSP_GRAPH_UNDIRECTED))
        status = add_reverse_edges(g, error);
    return status;
}
