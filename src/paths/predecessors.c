/* Shortest-path predecessors derived after the solve, from the distances and the edge list
 * (apsp_predecessors in include/apsp.h), and one path read off them (apsp_path).
 *
 * An edge (k, j) of weight w is tight for source i when d(i,k) < INF and d(i,k) + w = d(i,j):
 * it lies on some shortest path from i. A breadth-first search from i over tight edges reaches
 * every vertex at a finite distance, and the edge by which it first reaches j makes k the
 * predecessor of j. The tree is a valid shortest-path tree also where a search that picked any
 * tight in-edge would close a loop: zero-weight cycles (and, with negative weights, any cycle of
 * tight edges, which weighs 0 when there is no negative cycle).
 *
 * The graph becomes a CSR adjacency once (rows by source vertex, targets ascending, the least
 * weight of each (k, j) pair, no self-loops), then the sources are split over host threads: each
 * search reads its source's row of distances and the adjacency, O(E) per source, O(V E) in all. */
#include "apsp.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/parallel.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The graph's out-edges, row k in [start[k], start[k + 1]). */
typedef struct adjacency {
    size_t vertices;
    size_t *start;
    int32_t *target;
    int64_t *weight;
} adjacency;

typedef struct arc {
    int32_t target;
    int64_t weight;
} arc;

static int arc_order(const void *a, const void *b) {
    const arc *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return (x->weight > y->weight) - (x->weight < y->weight);
}

static void adjacency_free(adjacency *a) {
    free(a->start);
    free(a->target);
    free(a->weight);
}

/* Counting sort by source, then each row sorted by target and its repeated pairs merged to the
 * least weight. Self-loops never lie on a shortest path (d(i,k) + w = d(i,k) only for w = 0, and
 * then k was reached already) and are left out. */
static apsp_status adjacency_build(const apsp_graph *g, adjacency *a, apsp_error *error) {
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
            a->start[(size_t)g->source[e] + 1]++;
    for (size_t k = 0; k < v; k++)
        a->start[k + 1] += a->start[k];
    memcpy(fill, a->start, v * sizeof *fill);
    for (size_t e = 0; e < g->edges; e++)
        if (g->source[e] != g->target[e])
            arcs[fill[g->source[e]]++] = (arc){g->target[e], g->weight[e]};
    free(fill);
    /* Sort each row and keep the first (least) weight of each target, compacting in place. */
    size_t kept = 0;
    for (size_t k = 0; k < v; k++) {
        size_t begin = a->start[k], end = a->start[k + 1];
        qsort(arcs + begin, end - begin, sizeof *arcs, arc_order);
        a->start[k] = kept;
        for (size_t e = begin; e < end; e++)
            if (e == begin || arcs[e].target != arcs[e - 1].target)
                arcs[kept++] = arcs[e];
    }
    a->start[v] = kept;
    a->target = apsp_malloc((kept ? kept : 1) * sizeof *a->target);
    a->weight = apsp_malloc((kept ? kept : 1) * sizeof *a->weight);
    if (!a->target || !a->weight) {
        free(arcs);
        adjacency_free(a);
        return fail(error, APSP_ERR_NO_MEMORY,
                    "predecessors: out of memory for the adjacency "
                    "of %zu edges",
                    kept);
    }
    for (size_t e = 0; e < kept; e++) {
        a->target[e] = arcs[e].target;
        a->weight[e] = arcs[e].weight;
    }
    free(arcs);
    return APSP_OK;
}

/* One search's outcome when the distances are not the graph's shortest distances. */
typedef struct mismatch {
    int found;
    size_t source, vertex;
    int unreached; /* 1: d(source, vertex) is finite but no tight path reaches it;
                      0: an edge into vertex is shorter than d(source, vertex) */
} mismatch;

typedef struct job {
    const adjacency *adj;
    const apsp_matrix *d;
    size_t first;
    int32_t *pred; /* row r is source first + r */
    mismatch *bad; /* one per slice start: filled by the slice that found one */
    size_t count;
} job;

/* The search from source i into the predecessor row p. Returns 0, or 1 with *bad filled. */
static int search(const job *jb, size_t i, int32_t *p, int32_t *queue, mismatch *bad) {
    const adjacency *a = jb->adj;
    const int32_t *d = apsp_matrix_row(jb->d, i);
    size_t v = a->vertices;
    size_t finite = 0;
    for (size_t j = 0; j < v; j++) {
        p[j] = APSP_NO_PREDECESSOR;
        finite += d[j] < APSP_INF;
    }
    size_t head = 0, tail = 0, found = 1;
    queue[tail++] = (int32_t)i;
    /* The search stops once every vertex at a finite distance is reached. */
    while (head < tail && found < finite) {
        int32_t k = queue[head++];
        int64_t dk = d[k];
        for (size_t e = a->start[k], end = a->start[k + 1]; e < end; e++) {
            int32_t j = a->target[e];
            int64_t via = dk + a->weight[e];
            if (via != d[j]) {
                if (via < d[j]) {
                    *bad = (mismatch){1, i, (size_t)j, 0};
                    return 1;
                }
                continue;
            }
            if (p[j] != APSP_NO_PREDECESSOR || (size_t)j == i)
                continue;
            p[j] = k;
            queue[tail++] = j;
            found++;
        }
    }
    if (found < finite) {
        for (size_t j = 0; j < v; j++)
            if (d[j] < APSP_INF && p[j] == APSP_NO_PREDECESSOR && j != i) {
                *bad = (mismatch){1, i, j, 1};
                return 1;
            }
    }
    return 0;
}

enum { MISMATCH = -1 };

static int search_slice(void *context, size_t begin, size_t end) {
    const job *jb = context;
    int32_t *queue = apsp_malloc((jb->adj->vertices ? jb->adj->vertices : 1) * sizeof *queue);
    if (!queue)
        return ENOMEM;
    int result = 0;
    size_t v = jb->adj->vertices;
    for (size_t r = begin; r < end && !result; r++)
        if (search(jb, jb->first + r, jb->pred + r * v, queue, &jb->bad[begin]))
            result = MISMATCH;
    free(queue);
    return result;
}

/* Refuses what the derivation cannot take, naming the first problem. */
static apsp_status check_inputs(const apsp_graph *graph, const apsp_matrix *distances, size_t first,
                                size_t count, const int32_t *pred, apsp_error *error) {
    if (!graph || !distances || !pred)
        return fail(error, APSP_ERR_USAGE, "predecessors: the %s is NULL",
                    !graph       ? "graph"
                    : !distances ? "distance matrix"
                                 : "predecessor array");
    if (graph->vertices != distances->n)
        return fail(error, APSP_ERR_USAGE,
                    "predecessors: the graph has %zu vertices but the distance matrix %zu",
                    graph->vertices, distances->n);
    if (distances->n > 0 && (!distances->data || distances->stride < distances->n))
        return fail(error, APSP_ERR_USAGE, "predecessors: the distance matrix is malformed");
    if (first > distances->n || count > distances->n - first)
        return fail(error, APSP_ERR_USAGE,
                    "predecessors: sources [%zu, %zu + %zu) are not within [0, %zu)", first, first,
                    count, distances->n);
    for (size_t e = 0; e < graph->edges; e++) {
        int32_t s = graph->source[e], t = graph->target[e];
        if (s < 0 || (size_t)s >= graph->vertices || t < 0 || (size_t)t >= graph->vertices)
            return fail(error, APSP_ERR_USAGE,
                        "predecessors: edge %zu (%d -> %d) has an endpoint outside [0, %zu)", e,
                        (int)s, (int)t, graph->vertices);
        if (graph->weight[e] <= -(int64_t)APSP_INF || graph->weight[e] >= (int64_t)APSP_INF)
            return fail(error, APSP_ERR_USAGE,
                        "predecessors: edge %zu (%d -> %d) has weight %lld, outside the distances' "
                        "range",
                        e, (int)s, (int)t, (long long)graph->weight[e]);
    }
    for (size_t r = 0; r < count; r++) {
        size_t i = first + r;
        if (apsp_matrix_row(distances, i)[i] != 0)
            return fail(error, APSP_ERR_USAGE,
                        "predecessors: the distance from vertex %zu to itself is %d, not 0", i,
                        (int)apsp_matrix_row(distances, i)[i]);
    }
    return APSP_OK;
}

apsp_status apsp_predecessors(const apsp_graph *graph, const apsp_matrix *distances, size_t first,
                              size_t count, unsigned threads, int32_t *pred, apsp_error *error) {
    apsp_status status = check_inputs(graph, distances, first, count, pred, error);
    if (status != APSP_OK || count == 0)
        return status;
    adjacency adj;
    status = adjacency_build(graph, &adj, error);
    if (status != APSP_OK)
        return status;
    mismatch *bad = apsp_calloc(count, sizeof *bad);
    if (!bad) {
        adjacency_free(&adj);
        return fail(error, APSP_ERR_NO_MEMORY, "predecessors: out of memory");
    }
    job jb = {&adj, distances, first, pred, bad, count};
    int result = parallel_slices(count, threads, search_slice, &jb);
    if (result == MISMATCH) {
        /* The slice that found it wrote at its own start; the first slice's. */
        const mismatch *m = bad;
        while (!m->found)
            m++;
        status =
            m->unreached
                ? fail(error, APSP_ERR_USAGE,
                       "predecessors: the distances are not the graph's shortest distances: "
                       "vertex %zu is at distance %d from %zu, but no path of that length "
                       "reaches it",
                       m->vertex, (int)apsp_matrix_row(distances, m->source)[m->vertex], m->source)
                : fail(error, APSP_ERR_USAGE,
                       "predecessors: the distances are not the graph's shortest distances: "
                       "an edge into vertex %zu gives a path from %zu shorter than %d",
                       m->vertex, m->source, (int)apsp_matrix_row(distances, m->source)[m->vertex]);
    } else if (result != 0) {
        status = fail(error, APSP_ERR_NO_MEMORY, "predecessors: out of memory for the searches");
    }
    free(bad);
    adjacency_free(&adj);
    return status;
}

apsp_status apsp_path(const int32_t *pred_row, size_t vertices, size_t source, size_t target,
                      int32_t *path, size_t *length, apsp_error *error) {
    if (!pred_row || !path || !length)
        return fail(error, APSP_ERR_USAGE, "path: a NULL argument");
    *length = 0;
    if (source >= vertices || target >= vertices)
        return fail(error, APSP_ERR_USAGE, "path: %zu -> %zu: a vertex outside [0, %zu)", source,
                    target, vertices);
    if (pred_row[source] != APSP_NO_PREDECESSOR)
        return fail(error, APSP_ERR_USAGE,
                    "path: the predecessor row is not vertex %zu's: it gives the source a "
                    "predecessor",
                    source);
    if (target != source && pred_row[target] == APSP_NO_PREDECESSOR)
        return APSP_OK; /* unreachable */
    /* Backwards from the target into the end of path, then moved to the front. */
    size_t n = 0, at = target;
    for (;;) {
        if (n == vertices)
            return fail(error, APSP_ERR_USAGE, "path: the predecessors from %zu to %zu form a loop",
                        source, target);
        path[vertices - 1 - n++] = (int32_t)at;
        if (at == source)
            break;
        int32_t p = pred_row[at];
        if (p < 0 || (size_t)p >= vertices)
            return fail(error, APSP_ERR_USAGE,
                        "path: vertex %zu has predecessor %d, which is not a vertex on a path "
                        "from %zu",
                        at, (int)p, source);
        at = (size_t)p;
    }
    memmove(path, path + vertices - n, n * sizeof *path);
    *length = n;
    return APSP_OK;
}
