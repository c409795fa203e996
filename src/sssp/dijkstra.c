/* Dijkstra from one source over the out-adjacency, with the 4-ary heap of heap.h. */
#include "sssp/sssp.h"

#include <string.h>

void dijkstra_distances(const adjacency *g, const int64_t *weights, int32_t source,
                        sssp_scratch *s) {
    size_t v = g->vertices;
    int64_t *dist = s->dist;
    heap *h = &s->heap;
    for (size_t t = 0; t < v; t++)
        dist[t] = SSSP_UNREACHED;
    memset(h->at, 0xff, v * sizeof *h->at); /* -1: in no heap */
    h->size = 0;
    dist[source] = 0;
    heap_lower(h, source, 0);
    while (h->size > 0) {
        heap_entry top = heap_pop(h);
        const size_t end = g->start[top.vertex + 1];
        for (size_t e = g->start[top.vertex]; e < end; e++) {
            int32_t to = g->other[e];
            int64_t through = top.key + weights[e];
            /* A popped vertex is never lowered again: its distance is final and no weight is
             * negative. */
            if (through < dist[to]) {
                dist[to] = through;
                heap_lower(h, to, through);
            }
        }
    }
}
