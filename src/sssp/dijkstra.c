/* Dijkstra from one source over the out-adjacency, with the radix heap of radix_heap.h. */
#include "sssp/sssp.h"

int dijkstra_distances(const adjacency *g, const int64_t *weights, int32_t source,
                       sssp_scratch *s) {
    size_t v = g->vertices;
    int64_t *dist = s->dist;
    radix_heap *h = &s->heap;
    for (size_t t = 0; t < v; t++)
        dist[t] = SSSP_UNREACHED;
    radix_reset(h);
    dist[source] = 0;
    radix_push(h, 0, source);
    while (h->size > 0 && !h->out_of_memory) {
        radix_item top = radix_pop(h);
        int64_t key = (int64_t)top.key;
        if (key != dist[top.vertex])
            continue; /* a stale entry: the vertex was lowered after it was pushed */
        const size_t end = g->start[top.vertex + 1];
        for (size_t e = g->start[top.vertex]; e < end; e++) {
            int32_t to = g->other[e];
            int64_t through = key + weights[e];
            if (through < dist[to]) {
                dist[to] = through;
                s->parent[to] = top.vertex;
                radix_push(h, (uint64_t)through, to);
            }
        }
    }
    return h->out_of_memory;
}
