/* The distances' type of a run: --dtype's, or the narrowest the graph's weights fit (cli.h). */
#include "cli.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The weight of the largest magnitude of an integer graph, for the message. */
static int64_t widest_weight(const apsp_graph *g) {
    int64_t widest = 0;
    uint64_t most = 0;
    for (size_t e = 0; e < g->edges; e++) {
        int64_t w = g->weight[e];
        uint64_t magnitude = w < 0 ? 0 - (uint64_t)w : (uint64_t)w;
        if (magnitude > most) {
            most = magnitude;
            widest = w;
        }
    }
    return widest;
}

/* Chosen sources by a method other than Floyd-Warshall: no V x V matrix, and a type bounded by
 * the paths those methods find (apsp_graph_sources_dtype). */
static int sparse_sources(const cli *c) {
    return c->sources.asked && c->sources.method != APSP_METHOD_FW;
}

/* Why the weights need the type they got. */
static void explain(cli *c, const apsp_graph *g) {
    size_t size = sizeof c->distances;
    if (!c->read.dtype_auto) {
        snprintf(c->distances, size, "%s (--dtype)", apsp_dtype_name(c->dtype));
    } else if (g->real_weight) {
        snprintf(c->distances, size, "float64: the weights are real (a fractional weight)");
    } else if (c->dtype == APSP_INT32 && sparse_sources(c) && apsp_graph_dtype(g) != APSP_INT32) {
        snprintf(c->distances, size,
                 "int32: no weight is negative and the V - 1 largest sum to less than %d, so no "
                 "path the sources' methods find can pass int32's range",
                 APSP_INF);
    } else if (c->dtype == APSP_INT32) {
        snprintf(c->distances, size,
                 "int32: every weight w has (V - 1) * |w| < %d, so no distance can pass int32's "
                 "range",
                 APSP_INF);
    } else {
        snprintf(c->distances, size,
                 "%s: with V = %zu, weight %" PRId64 " has (V - 1) * |w| >= %d: a distance could "
                 "pass int32's range",
                 apsp_dtype_name(c->dtype), g->vertices, widest_weight(g), APSP_INF);
    }
}

/* A pair whose distance the weights alone put past int32's range. */
typedef struct wide_pair {
    size_t from, to, through; /* through: the vertex whose edges all weigh that much */
    int64_t bound;
    int out; /* every edge out of `through` (else into it) */
} wide_pair;

static int is_lighter(const apsp_graph *g, size_t e, size_t than) {
    return than == SIZE_MAX || g->weight[e] < g->weight[than];
}

/* With no negative weight, a vertex whose every edge out weighs APSP_INF or more starts only
 * paths that long, and the target of its lightest edge is reachable; the same for the edges
 * into a vertex. The index of each vertex's lightest edge out and in, into two arrays. */
static int heavy_vertex(const apsp_graph *g, wide_pair *pair) {
    size_t *out = malloc(g->vertices * sizeof *out), *in = malloc(g->vertices * sizeof *in);
    int found = 0;
    if (!out || !in) { /* the writer then finds out after the solve */
        free(out);
        free(in);
        return 0;
    }
    for (size_t v = 0; v < g->vertices; v++)
        out[v] = in[v] = SIZE_MAX;
    for (size_t e = 0; e < g->edges; e++) {
        size_t s = (size_t)g->source[e], t = (size_t)g->target[e];
        if (s != t && is_lighter(g, e, out[s]))
            out[s] = e;
        if (s != t && is_lighter(g, e, in[t]))
            in[t] = e;
    }
    for (size_t v = 0; v < g->vertices && !found; v++) {
        size_t e = out[v] != SIZE_MAX && g->weight[out[v]] >= APSP_INF ? out[v] : in[v];
        if (e != SIZE_MAX && g->weight[e] >= APSP_INF) {
            *pair = (wide_pair){(size_t)g->source[e], (size_t)g->target[e], v, g->weight[e],
                                e == out[v]};
            found = 1;
        }
    }
    free(out);
    free(in);
    return found;
}

/* Whether the int64 weights make some distance certainly past int32's range, which the hw3
 * output cannot hold: an edge of weight -APSP_INF or less (its pair's distance is at most that),
 * or a heavy_vertex. Any other graph may or may not have such a distance, which only the solve
 * tells: the writer then refuses it before touching OUTPUT. */
static int certain_wide_pair(const apsp_graph *g, wide_pair *pair) {
    int negative = 0;
    for (size_t e = 0; e < g->edges; e++) {
        if (g->source[e] == g->target[e])
            continue;
        if (g->weight[e] <= -APSP_INF) {
            *pair = (wide_pair){(size_t)g->source[e], (size_t)g->target[e], 0, g->weight[e], 0};
            return 1;
        }
        negative |= g->weight[e] < 0;
    }
    return !negative && heavy_vertex(g, pair);
}

static const char *output_name(const cli *c) {
    return strcmp(c->output, "-") == 0 ? "stdout" : c->output;
}

/* The hw3 output refused before the solve where its int32 cells cannot hold the distances. */
static apsp_status refuse_hw3_output(const cli *c, const apsp_graph *g, apsp_error *err) {
    wide_pair p;
    if (c->dtype == APSP_INT64 && (c->sources.asked || !certain_wide_pair(g, &p)))
        return APSP_OK;
    if (c->dtype == APSP_INT64) {
        char why[96];
        if (p.bound < 0)
            snprintf(why, sizeof why, "the edge from %zu to %zu weighs that much", p.from, p.to);
        else
            snprintf(why, sizeof why, "every edge %s %zu weighs that much, and none is negative",
                     p.out ? "out of" : "into", p.through);
        err->status = APSP_ERR_OUTPUT;
        snprintf(err->message, sizeof err->message,
                 "%.400s: the hw3 output holds int32 distances, but the distance from %zu to %zu "
                 "is at %s %" PRId64 ", beyond (-%d, %d): %s; name a .npy or .txt OUTPUT, or "
                 "give --output-format=npy or text",
                 output_name(c), p.from, p.to, p.bound < 0 ? "most" : "least", p.bound, APSP_INF,
                 APSP_INF, why);
        return APSP_ERR_OUTPUT;
    }
    err->status = APSP_ERR_USAGE;
    snprintf(err->message, sizeof err->message,
             "%.400s: the hw3 output holds int32 distances, and these are %s (%s): name a .npy or "
             ".txt OUTPUT, or give --output-format=npy or text (see apsp --help)",
             output_name(c), apsp_dtype_name(c->dtype),
             c->read.dtype_auto ? "the weights are real" : "--dtype");
    return APSP_ERR_USAGE;
}

/* The narrowest type the weights fit: for chosen sources by a method other than Floyd-Warshall,
 * by the sum of the V - 1 largest weights (apsp_graph_sources_dtype), else weight by weight. */
static apsp_dtype narrowest(const cli *c, const apsp_graph *g) {
    return sparse_sources(c) ? apsp_graph_sources_dtype(g) : apsp_graph_dtype(g);
}

apsp_status cli_pick_dtype(cli *c, const apsp_graph *g, apsp_error *err) {
    c->dtype = c->read.dtype_auto ? narrowest(c, g) : c->read.dtype;
    explain(c, g);
    apsp_format format = c->output_format ? c->output_format : apsp_format_for(c->output, 1);
    if (format != APSP_FORMAT_HW3 || c->dtype == APSP_INT32)
        return APSP_OK;
    return refuse_hw3_output(c, g, err);
}
