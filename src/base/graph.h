/* The library's own use of the public edge list (apsp_graph): today's rule for weights, kept in
 * one place so that the change that brings int64 distances relaxes it here and nowhere else. */
#ifndef APSP_GRAPH_H
#define APSP_GRAPH_H

#include "apsp.h"

#include <stddef.h>

/* The weights a graph of `vertices` vertices may carry: |w| <= most with (V - 1) * most <
 * APSP_INF (least = -most), so that every simple path's length lies strictly between -APSP_INF
 * and APSP_INF: no shortest distance reaches the unreachable marker, and the sum of two distances
 * never overflows int32 (with V = 1 every edge is an ignored self-loop: any int32).
 * vertices = 0 means V is not known yet: no bound applies. */
typedef struct weight_rule {
    int64_t least;
    int64_t most;
} weight_rule;

weight_rule weight_rule_for(size_t vertices);

/* NULL when w obeys the rule for V = vertices; else why not, as a phrase that names w
 * ("weight 5000000 is too large: with V = ...", "weight -5000000 is too negative: ..."), in buf. */
const char *weight_problem(int64_t w, size_t vertices, char *buf, size_t size);

/* Whether some edge that is no self-loop has a negative weight (the kernels' negative form). */
int graph_has_negative(const apsp_graph *graph);

/* Every edge's endpoints in [0, V) and weight within the rule, and 1 <= V <= INT32_MAX: else
 * APSP_ERR_USAGE naming the first bad edge (what apsp_graph_to_matrix checks first). */
apsp_status graph_check(const apsp_graph *graph, apsp_error *error);

/* apsp_graph_append with its common case inline: the readers' per-edge step. */
static inline apsp_status graph_push(apsp_graph *g, int32_t source, int32_t target, int64_t weight,
                                     apsp_error *error) {
    if (g->edges == g->capacity)
        return apsp_graph_append(g, source, target, weight, error);
    g->source[g->edges] = source;
    g->target[g->edges] = target;
    g->weight[g->edges] = weight;
    g->edges++;
    return APSP_OK;
}

#endif
