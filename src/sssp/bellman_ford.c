/* Bellman-Ford from one source or from Johnson's virtual vertex (sssp.h), by frontiers. */
#include "sssp/sssp.h"

#include <string.h>

/* A vertex on the negative cycle that lowered `lowered` in round V: following the parents V
 * times cannot end at the start (a parent chain back to it would be a path at least as short
 * as every walk of fewer than V edges, which the lowering in round V contradicts), so it ends
 * on a cycle of the parent graph, and every such cycle has negative weight. */
static int32_t on_the_cycle(const sssp_scratch *s, size_t vertices, int32_t lowered) {
    int32_t x = lowered;
    for (size_t i = 0; i < vertices && s->parent[x] >= 0; i++)
        x = s->parent[x];
    return x;
}

/* Relaxes the out-edges of the frontier's vertices; the vertices lowered go into `next`.
 * Returns their number. */
static size_t relax_frontier(const adjacency *g, sssp_scratch *s, const int32_t *frontier,
                             size_t count, int32_t *next) {
    size_t lowered = 0;
    for (size_t f = 0; f < count; f++) {
        int32_t u = frontier[f];
        int64_t du = s->dist[u];
        for (size_t e = g->start[u]; e < g->start[u + 1]; e++) {
            int32_t to = g->other[e];
            if (du + g->weight[e] < s->dist[to]) {
                s->dist[to] = du + g->weight[e];
                s->parent[to] = u;
                if (!s->queued[to]) {
                    s->queued[to] = 1;
                    next[lowered++] = to;
                }
            }
        }
    }
    for (size_t i = 0; i < lowered; i++)
        s->queued[next[i]] = 0;
    return lowered;
}

int bellman_ford_distances(const adjacency *g, int32_t source, sssp_scratch *s,
                           int32_t *cycle_vertex) {
    size_t v = g->vertices, count;
    int32_t *frontier = s->queue, *next = s->queue + v;
    memset(s->parent, 0xff, v * sizeof *s->parent);
    memset(s->queued, 0, v);
    if (source >= 0) {
        for (size_t t = 0; t < v; t++)
            s->dist[t] = SSSP_UNREACHED;
        s->dist[source] = 0;
        frontier[0] = source;
        count = 1;
    } else { /* the virtual vertex's round: every vertex at 0 */
        memset(s->dist, 0, v * sizeof *s->dist);
        for (size_t t = 0; t < v; t++)
            frontier[t] = (int32_t)t;
        count = v;
    }
    /* After round r every walk of r edges (r + 1 from the virtual vertex) is matched, so every
     * simple path is by round V - 1, and without a negative cycle no distance falls below its
     * shortest simple path: a vertex still lowered in round V lies beyond a negative cycle. */
    for (size_t round = 1; count > 0; round++) {
        count = relax_frontier(g, s, frontier, count, next);
        if (count > 0 && round >= v) {
            *cycle_vertex = on_the_cycle(s, v, next[0]);
            return 1;
        }
        int32_t *swap = frontier;
        frontier = next;
        next = swap;
    }
    return 0;
}
