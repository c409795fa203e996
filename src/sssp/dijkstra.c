/* Dijkstra from one source over the out-adjacency, with the radix heaps of radix_heap.h: one body
 * for three kinds of distance (sssp.h): int64 and double over g->other and a weight array, and
 * the narrow path's uint32 over packed (target, weight) arcs with 32-bit keys. Each is made twice,
 * with and without the parents, so that a solve that asks for no predecessors writes none. */
#include "sssp/sssp.h"

#include <math.h>
#include <string.h>

/* A real distance's key: the IEEE-754 bits of a non-negative double, read as an unsigned
 * integer, grow with the value (the exponent sits above the fraction, and the sign bit is 0),
 * so the radix heap orders them as it orders integers. Every key is a sum of the source's 0 and
 * non-negative weights (Johnson's clamped to 0, sssp.h), and a rounded sum of non-negative
 * terms is never below either term, so no key is pushed below the last one popped. -0 + x is
 * +0 or x, so the keys never carry the sign bit. */
static inline uint64_t real_key(double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

static inline uint64_t integer_key(int64_t d) {
    return (uint64_t)d;
}

static inline uint32_t narrow_key(uint32_t d) {
    return d;
}

/* The edges of one kind: e's target TARGET(edges, e) and weight WEIGHT(edges, e). */
typedef struct wide_edges {
    const int32_t *other;
    const int64_t *weight;
} wide_edges;

typedef struct real_edges {
    const int32_t *other;
    const double *weight;
} real_edges;

#define SPLIT_TARGET(edges, e) ((edges).other[e])
#define SPLIT_WEIGHT(edges, e) ((edges).weight[e])
#define ARC_TARGET(edges, e) ((edges)[e].target)
#define ARC_WEIGHT(edges, e) ((edges)[e].weight)

/* The cells of one kind: vertex t's distance DIST(cells[t]), and where its out-edges begin,
 * FIRST(g, cells, t). The narrow path keeps the offset beside the distance (sssp_vertex), so the
 * load that compares a target's distance also brings the offset that prefetches its arcs. */
#define PLAIN_DIST(cell) (cell)
#define RECORD_DIST(cell) ((cell).dist)
#define CSR_FIRST(g, cells, u) ((g)->start[u])
#define RECORD_FIRST(g, cells, u) ((cells)[u].first_arc)

/* NAME(g, edges, source, parents, s): distances DIST_T in s->CELLS (CELL_T each, read by DIST;
 * UNREACHED where there is no path) over EDGES_T, the queue s->HEAP (HEAP_T) of PREFIX's
 * functions keyed by KEY. A vertex lowered has its arcs prefetched: it is popped later, in an
 * order that jumps over the graph. The search itself is an always-inlined body called with
 * `parents` as a constant, so each call site is its own instance and the one without parents has
 * no store to s->parent. */
#define DEFINE_DIJKSTRA(NAME, EDGES_T, TARGET, WEIGHT, CELL_T, CELLS, DIST, FIRST, DIST_T,         \
                        UNREACHED, HEAP_T, HEAP, PREFIX, KEY)                                      \
    static inline __attribute__((always_inline)) int NAME##_search(                                \
        const adjacency *g, EDGES_T edges, int32_t source, const int parents, sssp_scratch *s) {   \
        size_t v = g->vertices;                                                                    \
        CELL_T *cells = s->CELLS;                                                                  \
        HEAP_T *h = &s->HEAP;                                                                      \
        for (size_t t = 0; t < v; t++)                                                             \
            DIST(cells[t]) = UNREACHED;                                                            \
        PREFIX##_reset(h);                                                                         \
        DIST(cells[source]) = 0;                                                                   \
        PREFIX##_push(h, KEY(0), source);                                                          \
        while (h->size > 0 && !h->out_of_memory) {                                                 \
            HEAP_T##_item top = PREFIX##_pop(h);                                                   \
            DIST_T d = DIST(cells[top.vertex]);                                                    \
            if (top.key != KEY(d))                                                                 \
                continue; /* a stale entry: the vertex was lowered after it was pushed */          \
            const size_t end = FIRST(g, cells, top.vertex + 1);                                    \
            for (size_t e = FIRST(g, cells, top.vertex); e < end; e++) {                           \
                int32_t to = TARGET(edges, e);                                                     \
                DIST_T through = d + WEIGHT(edges, e), known = DIST(cells[to]);                    \
                unsigned lower = through < known;                                                  \
                DIST(cells[to]) = lower ? through : known;                                         \
                if (parents && lower)                                                              \
                    s->parent[to] = top.vertex;                                                    \
                PREFIX##_push_if(h, KEY(through), to, lower);                                      \
                __builtin_prefetch(&TARGET(edges, FIRST(g, cells, to)), 0, 1);                     \
            }                                                                                      \
        }                                                                                          \
        return h->out_of_memory;                                                                   \
    }                                                                                              \
    static int NAME(const adjacency *g, EDGES_T edges, int32_t source, int parents,                \
                    sssp_scratch *s) {                                                             \
        return parents ? NAME##_search(g, edges, source, 1, s)                                     \
                       : NAME##_search(g, edges, source, 0, s);                                    \
    }

DEFINE_DIJKSTRA(dijkstra_wide, wide_edges, SPLIT_TARGET, SPLIT_WEIGHT, int64_t, dist, PLAIN_DIST,
                CSR_FIRST, int64_t, SSSP_UNREACHED, radix_heap, heap, radix, integer_key)
DEFINE_DIJKSTRA(dijkstra_real, real_edges, SPLIT_TARGET, SPLIT_WEIGHT, double, real_dist,
                PLAIN_DIST, CSR_FIRST, double, INFINITY, radix_heap, heap, radix, real_key)
DEFINE_DIJKSTRA(dijkstra_narrow, const sssp_arc *, ARC_TARGET, ARC_WEIGHT, sssp_vertex, narrow,
                RECORD_DIST, RECORD_FIRST, uint32_t, SSSP_NARROW_UNREACHED, radix_heap32,
                narrow_heap, radix32, narrow_key)

int dijkstra_distances(const adjacency *g, const int64_t *weights, int32_t source, int parents,
                       sssp_scratch *s) {
    return dijkstra_wide(g, (wide_edges){g->other, weights}, source, parents, s);
}

int dijkstra_distances_real(const adjacency *g, const double *weights, int32_t source, int parents,
                            sssp_scratch *s) {
    return dijkstra_real(g, (real_edges){g->other, weights}, source, parents, s);
}

DEFINE_DIJKSTRA(dijkstra_dial, const sssp_arc *, ARC_TARGET, ARC_WEIGHT, sssp_vertex, narrow,
                RECORD_DIST, RECORD_FIRST, uint32_t, SSSP_NARROW_UNREACHED, bucket_queue,
                narrow_queue, bucket_queue, narrow_key)

int dijkstra_distances_narrow(const adjacency *g, const sssp_arc *arcs, int32_t source, int parents,
                              sssp_scratch *s) {
    if (s->narrow_queue.span)
        return dijkstra_dial(g, arcs, source, parents, s);
    return dijkstra_narrow(g, arcs, source, parents, s);
}
