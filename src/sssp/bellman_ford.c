/* Bellman-Ford from one source or from Johnson's virtual vertex (sssp.h), by frontiers: one
 * body for integer distances (int64) and one for real ones (double); from a source, the narrow
 * paths' uint32 (no negative weight) and int32 (signed, within int32's rule) distances. */
#include "sssp/sssp.h"

#include <math.h>
#include <stdint.h>
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

/* `to`, just lowered by an edge from u: its parent u, and into the next frontier once. */
static inline void lowered_by(sssp_scratch *s, int32_t to, int32_t u, int32_t *next,
                              size_t *lowered) {
    s->parent[to] = u;
    if (!s->queued[to]) {
        s->queued[to] = 1;
        next[(*lowered)++] = to;
    }
}

/* The next frontier's queued bits cleared once its round is over; returns its size. */
static size_t unqueue(sssp_scratch *s, const int32_t *next, size_t lowered) {
    for (size_t i = 0; i < lowered; i++)
        s->queued[next[i]] = 0;
    return lowered;
}

/* Relaxes the out-edges of the frontier's vertices; the vertices lowered go into `next`.
 * Returns their number. NAME for distances DIST_T in s->DIST over the weights g->WEIGHT. */
#define DEFINE_RELAX_FRONTIER(NAME, DIST_T, DIST, WEIGHT)                                          \
    static size_t NAME(const adjacency *g, sssp_scratch *s, const int32_t *frontier, size_t count, \
                       int32_t *next) {                                                            \
        DIST_T *dist = s->DIST;                                                                    \
        size_t lowered = 0;                                                                        \
        for (size_t f = 0; f < count; f++) {                                                       \
            int32_t u = frontier[f];                                                               \
            DIST_T du = dist[u];                                                                   \
            for (size_t e = g->start[u]; e < g->start[u + 1]; e++) {                               \
                int32_t to = g->other[e];                                                          \
                if (du + g->WEIGHT[e] < dist[to]) {                                                \
                    dist[to] = du + g->WEIGHT[e];                                                  \
                    lowered_by(s, to, u, next, &lowered);                                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        return unqueue(s, next, lowered);                                                          \
    }

DEFINE_RELAX_FRONTIER(relax_frontier, int64_t, dist, weight)
DEFINE_RELAX_FRONTIER(relax_frontier_real, double, real_dist, real)

/* The first frontier: the source at 0 and every other vertex unreached, or (source = -1) the
 * virtual vertex's round, every vertex at 0 (all-zero bytes are 0 in int64 and in double).
 * Returns its size. */
static size_t first_frontier(sssp_scratch *s, size_t v, int32_t source, int real) {
    int32_t *frontier = s->queue;
    memset(s->parent, 0xff, v * sizeof *s->parent);
    memset(s->queued, 0, v);
    if (source < 0) {
        memset(s->dist, 0, v * sizeof *s->dist);
        for (size_t t = 0; t < v; t++)
            frontier[t] = (int32_t)t;
        return v;
    }
    for (size_t t = 0; t < v; t++) {
        if (real)
            s->real_dist[t] = INFINITY;
        else
            s->dist[t] = SSSP_UNREACHED;
    }
    if (real)
        s->real_dist[source] = 0;
    else
        s->dist[source] = 0;
    frontier[0] = source;
    return 1;
}

/* After round r every walk of r edges (r + 1 from the virtual vertex) is matched, so every
 * simple path is by round V - 1, and without a negative cycle no distance falls below its
 * shortest simple path: a vertex still lowered in round V lies beyond a negative cycle. */
#define DEFINE_BELLMAN_FORD(NAME, RELAX, REAL)                                                     \
    int NAME(const adjacency *g, int32_t source, sssp_scratch *s, int32_t *cycle_vertex) {         \
        size_t v = g->vertices, count = first_frontier(s, v, source, REAL);                        \
        int32_t *frontier = s->queue, *next = s->queue + v;                                        \
        for (size_t round = 1; count > 0; round++) {                                               \
            count = RELAX(g, s, frontier, count, next);                                            \
            if (count > 0 && round >= v) {                                                         \
                *cycle_vertex = on_the_cycle(s, v, next[0]);                                       \
                return 1;                                                                          \
            }                                                                                      \
            int32_t *swap = frontier;                                                              \
            frontier = next;                                                                       \
            next = swap;                                                                           \
        }                                                                                          \
        return 0;                                                                                  \
    }

DEFINE_BELLMAN_FORD(bellman_ford_distances, relax_frontier, 0)
DEFINE_BELLMAN_FORD(bellman_ford_distances_real, relax_frontier_real, 1)

/* relax_frontier over the narrow path's arcs and uint32 distances (sssp_narrow_fits: no sum
 * reaches SSSP_NARROW_UNREACHED). */
static size_t relax_frontier_narrow(const sssp_arc *arcs, sssp_scratch *s, const int32_t *frontier,
                                    size_t count, int32_t *next) {
    sssp_vertex *vertex = s->narrow;
    size_t lowered = 0;
    for (size_t f = 0; f < count; f++) {
        int32_t u = frontier[f];
        uint32_t du = vertex[u].dist;
        for (uint32_t e = vertex[u].first_arc; e < vertex[u + 1].first_arc; e++) {
            int32_t to = arcs[e].target;
            if (du + arcs[e].weight < vertex[to].dist) {
                vertex[to].dist = du + arcs[e].weight;
                lowered_by(s, to, u, next, &lowered);
            }
        }
    }
    return unqueue(s, next, lowered);
}

/* Without a negative weight there is no negative cycle: the rounds end by round V - 1. */
void bellman_ford_distances_narrow(const adjacency *g, const sssp_arc *arcs, int32_t source,
                                   sssp_scratch *s) {
    size_t v = g->vertices, count = 1;
    int32_t *frontier = s->queue, *next = s->queue + v;
    memset(s->parent, 0xff, v * sizeof *s->parent);
    memset(s->queued, 0, v);
    for (size_t t = 0; t < v; t++)
        s->narrow[t].dist = SSSP_NARROW_UNREACHED;
    s->narrow[source].dist = 0;
    frontier[0] = source;
    while (count > 0) {
        count = relax_frontier_narrow(arcs, s, frontier, count, next);
        int32_t *swap = frontier;
        frontier = next;
        next = swap;
    }
}

/* relax_frontier over the signed narrow path's int32 distances. Returns the vertices lowered,
 * or SIZE_MAX at the first sum at or below -APSP_INF (a negative cycle is reachable: sssp.h),
 * before it is stored, so that every stored value stays above -APSP_INF. */
static size_t relax_frontier_signed(const adjacency *g, const sssp_signed_arc *arcs,
                                    sssp_scratch *s, const int32_t *frontier, size_t count,
                                    int32_t *next) {
    int32_t *dist = s->signed_dist;
    size_t lowered = 0;
    for (size_t f = 0; f < count; f++) {
        int32_t u = frontier[f], du = dist[u];
        for (size_t e = g->start[u]; e < g->start[u + 1]; e++) {
            int32_t to = arcs[e].target, d = du + arcs[e].weight;
            if (d < dist[to]) {
                if (d <= -APSP_INF)
                    return SIZE_MAX; /* (its queued bits: the int64 rerun clears them) */
                dist[to] = d;
                lowered_by(s, to, u, next, &lowered);
            }
        }
    }
    return unqueue(s, next, lowered);
}

int bellman_ford_distances_signed(const adjacency *g, const sssp_signed_arc *arcs, int32_t source,
                                  sssp_scratch *s, int32_t *cycle_vertex) {
    size_t v = g->vertices, count = 1;
    int32_t *frontier = s->queue, *next = s->queue + v;
    memset(s->parent, 0xff, v * sizeof *s->parent);
    memset(s->queued, 0, v);
    for (size_t t = 0; t < v; t++)
        s->signed_dist[t] = SSSP_SIGNED_UNREACHED;
    s->signed_dist[source] = 0;
    frontier[0] = source;
    for (size_t round = 1; count > 0; round++) {
        count = relax_frontier_signed(g, arcs, s, frontier, count, next);
        if (count == SIZE_MAX) /* the int64 search finds the cycle and names its vertex */
            return bellman_ford_distances(g, source, s, cycle_vertex);
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
