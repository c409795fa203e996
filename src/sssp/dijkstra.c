/* Dijkstra from one source over the out-adjacency, with the radix heap of radix_heap.h: one body
 * for integer distances (int64) and one for real ones (double), the heap's keys made from them
 * by KEY. */
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

#define DEFINE_DIJKSTRA(NAME, DIST_T, DIST, UNREACHED, KEY)                                        \
    int NAME(const adjacency *g, const DIST_T *weights, int32_t source, sssp_scratch *s) {         \
        size_t v = g->vertices;                                                                    \
        DIST_T *dist = s->DIST;                                                                    \
        radix_heap *h = &s->heap;                                                                  \
        for (size_t t = 0; t < v; t++)                                                             \
            dist[t] = UNREACHED;                                                                   \
        radix_reset(h);                                                                            \
        dist[source] = 0;                                                                          \
        radix_push(h, KEY(dist[source]), source);                                                  \
        while (h->size > 0 && !h->out_of_memory) {                                                 \
            radix_item top = radix_pop(h);                                                         \
            DIST_T d = dist[top.vertex];                                                           \
            if (top.key != KEY(d))                                                                 \
                continue; /* a stale entry: the vertex was lowered after it was pushed */          \
            const size_t end = g->start[top.vertex + 1];                                           \
            for (size_t e = g->start[top.vertex]; e < end; e++) {                                  \
                int32_t to = g->other[e];                                                          \
                DIST_T through = d + weights[e];                                                   \
                if (through < dist[to]) {                                                          \
                    dist[to] = through;                                                            \
                    s->parent[to] = top.vertex;                                                    \
                    radix_push(h, KEY(through), to);                                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        return h->out_of_memory;                                                                   \
    }

DEFINE_DIJKSTRA(dijkstra_distances, int64_t, dist, SSSP_UNREACHED, integer_key)
DEFINE_DIJKSTRA(dijkstra_distances_real, double, real_dist, INFINITY, real_key)
