/* The graph as a CSR adjacency (adjacency.h). */
#include "backend/adjacency.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"

#include <stdlib.h>
#include <string.h>

typedef struct arc {
    int32_t target;
    int64_t weight;
    double real; /* a real graph's weight (weight unused) */
} arc;

static int arc_order(const void *a, const void *b) {
    const arc *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return (x->weight > y->weight) - (x->weight < y->weight);
}

static int real_arc_order(const void *a, const void *b) {
    const arc *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return (x->real > y->real) - (x->real < y->real);
}

void adjacency_free(adjacency *a) {
    free(a->start);
    free(a->other);
    free(a->weight);
    free(a->real);
}

/* Counting sort by source, then each row sorted by target and its repeated pairs merged to the
 * least weight. Self-loops never lie on a shortest path (d(i,k) + w = d(i,k) only for w = 0, and
 * then k was reached already) and are left out. */
apsp_status adjacency_build(const apsp_graph *g, int by_target, adjacency *a, apsp_error *error) {
    const int32_t *key = by_target ? g->target : g->source;
    const int32_t *other = by_target ? g->source : g->target;
    size_t v = g->vertices;
    memset(a, 0, sizeof *a);
    a->vertices = v;
    size_t loops = 0;
    for (size_t e = 0; e < g->edges; e++)
        loops += g->source[e] == g->target[e];
    size_t m = g->edges - loops;
    a->start = apsp_calloc(v + 1, sizeof *a->start);
    arc *arcs = apsp_malloc((m ? m : 1) * sizeof *arcs);
    size_t *fill = apsp_malloc((v ? v : 1) * sizeof *fill);
    if (!a->start || !arcs || !fill) {
        free(arcs);
        free(fill);
        adjacency_free(a);
        return fail(error, APSP_ERR_NO_MEMORY,
                    "predecessors: out of memory for the adjacency "
                    "of %zu edges",
                    m);
    }
    for (size_t e = 0; e < g->edges; e++)
        if (g->source[e] != g->target[e])
            a->start[(size_t)key[e] + 1]++;
    for (size_t k = 0; k < v; k++)
        a->start[k + 1] += a->start[k];
    memcpy(fill, a->start, v * sizeof *fill);
    for (size_t e = 0; e < g->edges; e++)
        if (g->source[e] != g->target[e])
            arcs[fill[key[e]]++] = g->real_weight ? (arc){other[e], 0, g->real_weight[e]}
                                                  : (arc){other[e], g->weight[e], 0};
    free(fill);
    /* Sort each row and keep the first (least) weight of each target, compacting in place. */
    size_t kept = 0;
    for (size_t k = 0; k < v; k++) {
        size_t begin = a->start[k], end = a->start[k + 1];
        qsort(arcs + begin, end - begin, sizeof *arcs, g->real_weight ? real_arc_order : arc_order);
        a->start[k] = kept;
        for (size_t e = begin; e < end; e++)
            if (e == begin || arcs[e].target != arcs[e - 1].target)
                arcs[kept++] = arcs[e];
    }
    a->start[v] = kept;
    a->other = apsp_malloc((kept ? kept : 1) * sizeof *a->other);
    if (g->real_weight)
        a->real = apsp_malloc((kept ? kept : 1) * sizeof *a->real);
    else
        a->weight = apsp_malloc((kept ? kept : 1) * sizeof *a->weight);
    if (!a->other || (!a->weight && !a->real)) {
        free(arcs);
        adjacency_free(a);
        return fail(error, APSP_ERR_NO_MEMORY,
                    "predecessors: out of memory for the adjacency "
                    "of %zu edges",
                    kept);
    }
    for (size_t e = 0; e < kept; e++) {
        a->other[e] = arcs[e].target;
        if (a->real)
            a->real[e] = arcs[e].real;
        else
            a->weight[e] = arcs[e].weight;
    }
    free(arcs);
    return APSP_OK;
}
