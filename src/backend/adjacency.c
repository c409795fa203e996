/* The graph as a CSR adjacency (adjacency.h). */
#include "backend/adjacency.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/group.h"
#include "base/parallel.h"

#include <stdlib.h>
#include <string.h>

typedef struct arc {
    int32_t target;
    int64_t weight;
    double real; /* a real graph's weight (weight unused) */
    size_t edge; /* its index in the graph: of a pair's equal weights, the first edge's is kept */
} arc;

static int arc_order(const void *a, const void *b) {
    const arc *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    if (x->weight != y->weight)
        return x->weight < y->weight ? -1 : 1;
    return (x->edge > y->edge) - (x->edge < y->edge);
}

static int real_arc_order(const void *a, const void *b) {
    const arc *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    if (x->real < y->real || x->real > y->real)
        return x->real < y->real ? -1 : 1;
    return (x->edge > y->edge) - (x->edge < y->edge);
}

void adjacency_free(adjacency *a) {
    free(a->start);
    free(a->other);
    free(a->weight);
    free(a->real);
}

/* The adjacency being built (adjacency_build), on the host's threads. */
typedef struct building {
    const apsp_graph *g;
    const int32_t *key, *other;
    size_t *row;   /* per row: its first edge in `edges` (group_by_key's starts) */
    size_t *edges; /* the graph's edges by row, each row's in increasing order */
    arc *arcs;     /* per row, from row[k]: its arcs sorted, the kept ones at the front */
    adjacency *a;
} building;

/* An edge's row, or -1 for a self-loop: it never lies on a shortest path (d(i,k) + w = d(i,k)
 * only for w = 0, and then k was reached already). */
static int64_t row_of(const void *context, size_t e) {
    const building *b = context;
    return b->g->source[e] == b->g->target[e] ? -1 : b->key[e];
}

/* Over rows [begin, end): each one's arcs sorted by target and weight, and the first (least) of
 * each target kept at the row's front; their count in a->start[k + 1] (made row starts after). */
static int sort_rows(void *context, size_t begin, size_t end) {
    const building *b = context;
    const apsp_graph *g = b->g;
    int (*order)(const void *, const void *) = g->real_weight ? real_arc_order : arc_order;
    for (size_t k = begin; k < end; k++) {
        arc *first = b->arcs + b->row[k];
        size_t count = b->row[k + 1] - b->row[k], kept = 0;
        for (size_t i = 0; i < count; i++) {
            size_t e = b->edges[b->row[k] + i];
            first[i] = g->real_weight ? (arc){b->other[e], 0, g->real_weight[e], e}
                                      : (arc){b->other[e], g->weight[e], 0, e};
        }
        sort_group(first, count, sizeof *first, order);
        for (size_t i = 0; i < count; i++)
            if (i == 0 || first[i].target != first[i - 1].target)
                first[kept++] = first[i];
        b->a->start[k + 1] = kept;
    }
    return 0;
}

/* Over rows [begin, end): the kept arcs into the adjacency's arrays. */
static int copy_rows(void *context, size_t begin, size_t end) {
    const building *b = context;
    adjacency *a = b->a;
    for (size_t k = begin; k < end; k++)
        for (size_t i = 0; i < a->start[k + 1] - a->start[k]; i++) {
            const arc *from = &b->arcs[b->row[k] + i];
            a->other[a->start[k] + i] = from->target;
            if (a->real)
                a->real[a->start[k] + i] = from->real;
            else
                a->weight[a->start[k] + i] = from->weight;
        }
    return 0;
}

static apsp_status no_room(building *b, size_t arcs, apsp_error *error) {
    free(b->row);
    free(b->edges);
    free(b->arcs);
    adjacency_free(b->a);
    return fail(error, APSP_ERR_NO_MEMORY,
                "predecessors: out of memory for the adjacency of %zu edges", arcs);
}

/* The edges grouped by row (group_by_key), each row's arcs sorted and merged to the least weight
 * of each pair, on the host's threads: one thread took 0.2-0.3 s for a million vertices' 4
 * million edges, ahead of every sparse solve. */
apsp_status adjacency_build(const apsp_graph *g, int by_target, unsigned threads, adjacency *a,
                            apsp_error *error) {
    size_t v = g->vertices, n = g->edges;
    memset(a, 0, sizeof *a);
    a->vertices = v;
    building b = {.g = g,
                  .key = by_target ? g->target : g->source,
                  .other = by_target ? g->source : g->target,
                  .row = apsp_malloc((v + 1) * sizeof *b.row),
                  .edges = apsp_malloc((n ? n : 1) * sizeof *b.edges),
                  .arcs = apsp_malloc((n ? n : 1) * sizeof *b.arcs),
                  .a = a};
    a->start = apsp_calloc(v + 1, sizeof *a->start);
    if (!b.row || !b.edges || !b.arcs || !a->start ||
        group_by_key(n, v, row_of, &b, threads, b.row, b.edges) != 0)
        return no_room(&b, n, error);
    unsigned working = threads_for_bytes(n * sizeof(arc), threads);
    (void)parallel_slices(v, working, sort_rows, &b);
    for (size_t k = 0; k < v; k++) /* the kept counts become row starts */
        a->start[k + 1] += a->start[k];
    size_t kept = a->start[v];
    a->other = apsp_malloc((kept ? kept : 1) * sizeof *a->other);
    if (g->real_weight)
        a->real = apsp_malloc((kept ? kept : 1) * sizeof *a->real);
    else
        a->weight = apsp_malloc((kept ? kept : 1) * sizeof *a->weight);
    if (!a->other || (!a->weight && !a->real))
        return no_room(&b, kept, error);
    (void)parallel_slices(v, working, copy_rows, &b);
    free(b.row);
    free(b.edges);
    free(b.arcs);
    return APSP_OK;
}
