/* Each graph's first edge of a batch given without `first` (drivers.h: batch_first_edges): the
 * edges grouped by graph as a graph-learning batch holds them (PyG's edge_index: a graph's
 * sources all above the graph before's), found in two passes over the sources on the host's
 * threads. NumPy's searchsorted of the graphs' first vertices took 0.12 s of a 0.36 s call for
 * 10^6 molecules on one H200 host's core (35 million edges); a pass over the sources is a
 * stream of reads that every core can share. */
#include "drivers/drivers.h"
#include "base/error.h"
#include "base/parallel.h"

#include <inttypes.h>
#include <stdlib.h>

/* The graph holding vertex v (0 <= v < nodes[count]): the last g with nodes[g] <= v, which
 * passes over the empty graphs that start where it does. */
static size_t graph_of(const uint64_t *nodes, size_t count, uint64_t v) {
    size_t low = 0, high = count; /* nodes[low] <= v < nodes[high] */
    while (high - low > 1) {
        const size_t mid = low + (high - low) / 2;
        if (nodes[mid] <= v)
            low = mid;
        else
            high = mid;
    }
    return low;
}

/* A slice of the edges: the graphs of its first and last edge, and its first edge out of place
 * (a source outside the batch, or below the graph of the edge before it), SIZE_MAX if none. */
typedef struct span {
    size_t begin, end, first_graph, last_graph, bad;
} span;

enum { MOST_SLICES = 64 };

typedef struct finder {
    const apsp_batch *batch;
    const uint64_t *nodes; /* count + 1 entries: graph g's first vertex, then the batch's total */
    size_t *first;
    span spans[MOST_SLICES];
    size_t slices;
} finder;

/* Pass 1 over slice k's edges: its graphs, and whether they never decrease. */
static int scan_slice(void *context, size_t k, size_t k_end) {
    finder *f = context;
    const int64_t *source = f->batch->edges->source;
    const uint64_t total = f->nodes[f->batch->count];
    for (; k < k_end; k++) {
        span *s = &f->spans[k];
        s->bad = SIZE_MAX;
        if (s->begin == s->end)
            continue;
        size_t g = (uint64_t)source[s->begin] < total
                       ? graph_of(f->nodes, f->batch->count, (uint64_t)source[s->begin])
                       : 0;
        s->first_graph = g;
        for (size_t e = s->begin; e < s->end; e++) {
            const uint64_t v = (uint64_t)source[e]; /* (a negative source: past total) */
            if (v >= total || v < f->nodes[g]) {
                s->bad = e;
                break;
            }
            while (v >= f->nodes[g + 1])
                g++;
        }
        s->last_graph = g;
    }
    return 0;
}

/* Pass 2 over slice k's edges, known in order: first[g] for every graph its edges enter. */
static int mark_slice(void *context, size_t k, size_t k_end) {
    finder *f = context;
    const int64_t *source = f->batch->edges->source;
    for (; k < k_end; k++) {
        const span *s = &f->spans[k];
        size_t g = s->first_graph;
        for (size_t e = s->begin; e < s->end; e++)
            while ((uint64_t)source[e] >= f->nodes[g + 1])
                f->first[++g] = e;
    }
    return 0;
}

/* The refusal of edge e, out of place. */
static apsp_status refuse(const finder *f, size_t e, apsp_error *error) {
    const apsp_batch_edges *edges = f->batch->edges;
    const uint64_t total = f->nodes[f->batch->count];
    if ((uint64_t)edges->source[e] >= total)
        return fail(error, APSP_ERR_USAGE,
                    "edge %zu (%" PRId64 " -> %" PRId64 ") leaves the batch's vertices [0, %" PRIu64
                    ")",
                    e, edges->source[e], edges->target[e], total);
    return fail(error, APSP_ERR_USAGE,
                "edge %zu (%" PRId64 " -> %" PRId64
                "): the edges are not grouped by graph (its source's graph comes before the "
                "edge before it)",
                e, edges->source[e], edges->target[e]);
}

/* The graphs between two slices' (none of whose edges lie in the slices) start at `at`. */
static void mark_between(size_t *first, size_t after, size_t upto, size_t at) {
    for (size_t g = after + 1; g <= upto; g++)
        first[g] = at;
}

apsp_status batch_first_edges(const apsp_batch *b, const uint64_t *nodes, size_t edge_count,
                              unsigned threads, size_t *first, apsp_error *error) {
    finder f = {.batch = b, .nodes = nodes, .first = first};
    /* Slices of at least a few thousand edges: below that the threads cost more than the pass. */
    const size_t want = threads ? threads : MOST_SLICES;
    f.slices = edge_count / 4096 < want ? edge_count / 4096 + 1 : want;
    f.slices = f.slices < MOST_SLICES ? f.slices : MOST_SLICES;
    for (size_t k = 0; k < f.slices; k++)
        f.spans[k] =
            (span){.begin = edge_count * k / f.slices, .end = edge_count * (k + 1) / f.slices};
    parallel_slices(f.slices, threads, scan_slice, &f);
    size_t last = 0; /* the graph of the edge before the slice */
    int any = 0;
    for (size_t k = 0; k < f.slices; k++) {
        const span *s = &f.spans[k];
        if (s->bad != SIZE_MAX)
            return refuse(&f, s->bad, error);
        if (s->begin == s->end)
            continue;
        if (any && s->first_graph < last)
            return refuse(&f, s->begin, error);
        if (any)
            mark_between(first, last, s->first_graph, s->begin);
        else
            mark_between(first, 0, s->first_graph, 0), first[0] = 0;
        last = s->last_graph, any = 1;
    }
    parallel_slices(f.slices, threads, mark_slice, &f);
    if (!any)
        mark_between(first, 0, b->count, 0), first[0] = 0;
    else
        mark_between(first, last, b->count, edge_count);
    return APSP_OK;
}
