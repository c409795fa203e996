/* The graph as a CSR adjacency (adjacency.h). */
#include "backend/adjacency.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/parallel.h"

#include <stdatomic.h>

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

/* The same arcs compared: by target, then weight, then (for a real weight) its bits, so that
 * the least of a pair is one arc whatever order the threads placed them in (+0.0 before -0.0). */
static int real_arc_total_order(const void *a, const void *b) {
    int order = real_arc_order(a, b);
    if (order != 0)
        return order;
    uint64_t x, y;
    memcpy(&x, &((const arc *)a)->real, sizeof x);
    memcpy(&y, &((const arc *)b)->real, sizeof y);
    return (x > y) - (x < y);
}

/* The adjacency being built (adjacency_build), on the host's threads. */
typedef struct building {
    const apsp_graph *g;
    const int32_t *key, *other;
    atomic_size_t *cursor; /* per row: its arcs counted, then its next free slot */
    size_t *row;           /* per row: its first slot among the placed arcs */
    arc *arcs;
    int (*order)(const void *, const void *);
    adjacency *a;
} building;

/* Over edges [begin, end): each row's arcs counted (self-loops left out). */
static int count_arcs(void *context, size_t begin, size_t end) {
    const building *b = context;
    for (size_t e = begin; e < end; e++)
        if (b->g->source[e] != b->g->target[e])
            atomic_fetch_add_explicit(&b->cursor[b->key[e]], 1, memory_order_relaxed);
    return 0;
}

/* Over edges [begin, end): each arc into a slot of its row, in whatever order the threads come. */
static int place_arcs(void *context, size_t begin, size_t end) {
    const building *b = context;
    const apsp_graph *g = b->g;
    for (size_t e = begin; e < end; e++) {
        if (g->source[e] == g->target[e])
            continue;
        size_t slot = atomic_fetch_add_explicit(&b->cursor[b->key[e]], 1, memory_order_relaxed);
        b->arcs[slot] = g->real_weight ? (arc){b->other[e], 0, g->real_weight[e]}
                                       : (arc){b->other[e], g->weight[e], 0};
    }
    return 0;
}

/* Over rows [begin, end): each sorted, and its repeated pairs merged to the least weight at the
 * row's front; the count kept in a->start[k + 1] (made row starts after). */
static int sort_rows(void *context, size_t begin, size_t end) {
    const building *b = context;
    for (size_t k = begin; k < end; k++) {
        arc *first = b->arcs + b->row[k];
        size_t count = b->row[k + 1] - b->row[k], kept = 0;
        if (count > 16) /* (a hub's many: insertion would be quadratic) */
            qsort(first, count, sizeof *first, b->order);
        else
            for (size_t i = 1; i < count; i++)
                for (size_t j = i; j > 0 && b->order(&first[j - 1], &first[j]) > 0; j--) {
                    arc swap = first[j];
                    first[j] = first[j - 1], first[j - 1] = swap;
                }
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
    free(b->cursor);
    free(b->row);
    free(b->arcs);
    adjacency_free(b->a);
    return fail(error, APSP_ERR_NO_MEMORY,
                "predecessors: out of memory for the adjacency of %zu edges", arcs);
}

/* Counted, placed and sorted by row on the host's threads: a million vertices' 4 million edges
 * took 0.2-0.3 s on one thread, ahead of every sparse solve. Self-loops never lie on a shortest
 * path (d(i,k) + w = d(i,k) only for w = 0, and then k was reached already) and are left out. */
apsp_status adjacency_build(const apsp_graph *g, int by_target, unsigned threads, adjacency *a,
                            apsp_error *error) {
    size_t v = g->vertices;
    memset(a, 0, sizeof *a);
    a->vertices = v;
    building b = {.g = g,
                  .key = by_target ? g->target : g->source,
                  .other = by_target ? g->source : g->target,
                  .order = g->real_weight ? real_arc_total_order : arc_order,
                  .a = a};
    b.cursor = apsp_calloc(v + 1, sizeof *b.cursor);
    b.row = apsp_malloc((v + 1) * sizeof *b.row);
    a->start = apsp_calloc(v + 1, sizeof *a->start);
    if (!b.cursor || !b.row || !a->start)
        return no_room(&b, g->edges, error);
    unsigned edge_threads = threads_for_bytes(g->edges * sizeof(arc), threads);
    (void)parallel_slices(g->edges, edge_threads, count_arcs, &b);
    b.row[0] = 0;
    for (size_t k = 0; k < v; k++) { /* each row's count becomes its cursor */
        size_t count = atomic_load_explicit(&b.cursor[k], memory_order_relaxed);
        atomic_store_explicit(&b.cursor[k], b.row[k], memory_order_relaxed);
        b.row[k + 1] = b.row[k] + count;
    }
    size_t m = b.row[v];
    b.arcs = apsp_malloc((m ? m : 1) * sizeof *b.arcs);
    if (!b.arcs)
        return no_room(&b, m, error);
    (void)parallel_slices(g->edges, edge_threads, place_arcs, &b);
    (void)parallel_slices(v, edge_threads, sort_rows, &b);
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
    (void)parallel_slices(v, edge_threads, copy_rows, &b);
    free(b.cursor);
    free(b.row);
    free(b.arcs);
    return APSP_OK;
}
