/* Shortest-path predecessors derived after the solve, from the distances and the edge list
 * (apsp_predecessors in include/apsp.h; apsp_predecessors_csr in csr.c); one path is read off
 * them in path.c.
 *
 * An edge (k, j) of weight w is tight for source i when d(i,k) < INF and d(i,k) + w = d(i,j):
 * it lies on some shortest path from i. Two ways to a valid shortest-path tree:
 *
 * - int32 distances and non-negative weights: the blocks. BLOCK sources at a time, one vector
 *   lane each, their rows of distances transposed (t[k][lane]); for every vertex j, its in-edges
 *   (k, j) against all lanes at once: the tight edge of least k makes k the predecessor, as on a
 *   device (tight_csr.c says why any tight edge will do when the zero-weight edges form no
 *   cycle). With zero-weight cycles only tight edges of positive weight count there (d(i,k) <
 *   d(i,j), so following predecessors strictly decreases the distance and never loops), and
 *   vertices that only zero-weight tight edges reach get theirs from a search over the
 *   zero-weight edges from vertices already in the tree (zero_search), so no zero-weight loop
 *   closes either. Every edge is compared with every distance on the way, so distances that are
 *   not the graph's are refused. O(V E / BLOCK) vector steps, the sources split over the host
 *   threads.
 * - Anything else (negative weights without negative cycles; int64, float32 and float64
 *   distances, the floating-point ones tight within a tolerance): a breadth-first search over
 *   the tight out-edges from each source (search.c).
 *
 * The graph becomes a CSR adjacency once (adjacency.c: by target for the blocks, by source for
 * the search). */
#include "paths/predecessors.h"
#include "base/element_types.h"
#include "base/error.h"
#include "base/util.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "backend/adjacency.h"
#include "paths/search.h"
#include "paths/tight_csr.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The sources in blocks of BLOCK, one vector lane each (see block_tight). */
enum { BLOCK = 16 };

/* The blocks' work: int32 distances, weights 0 <= w < INF. */
typedef struct job {
    const apsp_matrix *d;
    size_t first;
    int32_t *pred; /* row r is source first + r */
    mismatch *bad; /* one per slice start: filled by the slice that found one */
    /* The in-adjacency, its weights as int32, and the zero-weight edges by source (zero_start,
     * zero_target). */
    const adjacency *in;
    const int32_t *in_weight;
    const size_t *zero_start;
    const int32_t *zero_target;
    const int32_t *zero_from; /* the vertices with zero-weight out-edges, zero_sources of them */
    size_t zero_sources;
    size_t count;
    int zero_tight; /* the zero-weight edges form no cycle: they count in block_tight */
} job;

/* Every vertex's in-edges against BLOCK sources at once: t holds the block's distances
 * transposed, t[k * BLOCK + b] = d(source b, k) (INF in unused lanes), and pt gets the
 * predecessors the same way. A lane's predecessor of j is the first in-edge (k, j) that is tight
 * for it (the edges are scanned backwards, the last tight one kept); zero-weight edges count only
 * with zero_tight, else they are left to zero_search, which keeps the tree free of zero-weight
 * loops. shorter[b] becomes non-zero when an edge gives a path shorter
 * than a distance of lane b; missing[b] counts lane b's vertices at a finite distance left
 * without a predecessor (its source among them). No test for d(source, k) = INF is needed: with
 * 0 < w < INF and d(source, j) <= INF, INF + w neither equals nor undercuts d(source, j) (and
 * stays below 2^31); with w = 0, d(source, k) < d(source, j) means k is reached, and a tight one
 * needs d(source, j) < INF. */
typedef int32_t lanes __attribute__((vector_size(BLOCK * sizeof(int32_t))));

CLONED_FOR_ISAS static void block_tight(const int32_t *restrict t, const size_t *restrict start,
                                        const int32_t *restrict other,
                                        const int32_t *restrict weight, size_t v, int zero_tight,
                                        int32_t *restrict pt, int32_t *restrict shorter_out,
                                        int32_t *restrict missing_out) {
    lanes shorter = {0}, missing = {0}, none, inf;
    for (size_t b = 0; b < BLOCK; b++) {
        none[b] = APSP_NO_PREDECESSOR;
        inf[b] = APSP_INF;
    }
    for (size_t j = 0; j < v; j++) {
        lanes dj, p = none;
        memcpy(&dj, t + j * BLOCK, sizeof dj);
        lanes finite = dj < inf;
        for (size_t e = start[j + 1]; e-- > start[j];) {
            int32_t k = other[e], w = weight[e];
            lanes tk;
            memcpy(&tk, t + (size_t)k * BLOCK, sizeof tk);
            lanes via = tk + w;
            if (w > 0 || zero_tight) {
                lanes tight = (via == dj) & finite; /* -1 where tight, else 0 */
                p = (tight & k) | (~tight & p);
            }
            shorter |= via < dj;
        }
        missing -= (p == none) & (dj < inf); /* -(-1) */
        memcpy(pt + j * BLOCK, &p, sizeof p);
    }
    memcpy(shorter_out, &shorter, sizeof shorter);
    memcpy(missing_out, &missing, sizeof missing);
}

/* 16 x 16 tile transposes between the matrix's rows and the lanes, by two-source shuffles
 * (one instruction each with AVX-512) where the compiler has them. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector) && BLOCK == 16
#define HAVE_SHUFFLE 1
#endif
#endif

#ifdef HAVE_SHUFFLE
/* Row r and row r + s swap the blocks of s lanes off the diagonal, for s = 8, 4, 2, 1. */
#define SWAP_PAIR(a, b, lo, hi)                                                                    \
    do {                                                                                           \
        lanes x_ = __builtin_shufflevector(a, b, lo), y_ = __builtin_shufflevector(a, b, hi);      \
        a = x_;                                                                                    \
        b = y_;                                                                                    \
    } while (0)
#define LO8 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define HI8 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define LO4 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define HI4 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define LO2 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define HI2 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define LO1 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define HI1 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31

static inline __attribute__((always_inline)) void transpose16(lanes *r) {
    for (int i = 0; i < 8; i++)
        SWAP_PAIR(r[i], r[i + 8], LO8, HI8);
    for (int i = 0; i < 16; i += 8)
        for (int k = i; k < i + 4; k++)
            SWAP_PAIR(r[k], r[k + 4], LO4, HI4);
    for (int i = 0; i < 16; i += 4)
        for (int k = i; k < i + 2; k++)
            SWAP_PAIR(r[k], r[k + 2], LO2, HI2);
    for (int i = 0; i < 16; i += 2)
        SWAP_PAIR(r[i], r[i + 1], LO1, HI1);
}
#endif

/* t[k * BLOCK + b] = rows[b][k] for k in [0, v). */
CLONED_FOR_ISAS static void rows_to_lanes(const int32_t *const *rows, size_t v, int32_t *t) {
    size_t k0 = 0;
#ifdef HAVE_SHUFFLE
    for (; k0 + BLOCK <= v; k0 += BLOCK) {
        lanes r[BLOCK];
        for (size_t b = 0; b < BLOCK; b++)
            memcpy(&r[b], rows[b] + k0, sizeof r[b]);
        transpose16(r);
        memcpy(t + k0 * BLOCK, r, sizeof r);
    }
#endif
    for (size_t k = k0; k < v; k++)
        for (size_t b = 0; b < BLOCK; b++)
            t[k * BLOCK + b] = rows[b][k];
}

/* rows[b][j] = t[j * BLOCK + b] for j in [0, v) and the first `used` lanes. */
CLONED_FOR_ISAS static void lanes_to_rows(const int32_t *t, size_t v, size_t used,
                                          int32_t *const *rows) {
    size_t j0 = 0;
#ifdef HAVE_SHUFFLE
    for (; j0 + BLOCK <= v; j0 += BLOCK) {
        lanes r[BLOCK];
        memcpy(r, t + j0 * BLOCK, sizeof r);
        transpose16(r);
        for (size_t b = 0; b < used; b++)
            memcpy(rows[b] + j0, &r[b], sizeof r[b]);
    }
#endif
    for (size_t j = j0; j < v; j++)
        for (size_t b = 0; b < used; b++)
            rows[b][j] = t[j * BLOCK + b];
}

/* The first vertex j for which an in-edge undercuts lane b's d(source, j), for the message. */
static size_t first_shorter(const int32_t *t, const adjacency *in, const int32_t *weight,
                            size_t b) {
    for (size_t j = 0; j < in->vertices; j++)
        for (size_t e = in->start[j]; e < in->start[j + 1]; e++) {
            int32_t dk = t[(size_t)in->other[e] * BLOCK + b];
            if (dk < APSP_INF && (int64_t)dk + weight[e] < t[j * BLOCK + b])
                return j;
        }
    return 0;
}

/* The vertices of row i that block_tight left without a predecessor although at a finite
 * distance: those that only zero-weight tight edges reach. A search over the zero-weight tight
 * edges from every vertex that has its predecessor (and the source) gives each one, always from a
 * vertex already in the tree, so no loop closes. Returns 0, or 1 with *bad filled. */
static int zero_search(const job *jb, size_t i, int32_t *p, int32_t *queue, size_t missing,
                       mismatch *bad) {
    const int32_t *d = apsp_matrix_row(jb->d, i);
    size_t v = jb->in->vertices, tail = 0;
    for (size_t z = 0; z < jb->zero_sources; z++) {
        size_t k = (size_t)jb->zero_from[z];
        if (p[k] != APSP_NO_PREDECESSOR || k == i)
            queue[tail++] = (int32_t)k;
    }
    for (size_t head = 0; head < tail && missing > 0; head++) {
        int32_t k = queue[head];
        for (size_t e = jb->zero_start[k]; e < jb->zero_start[k + 1]; e++) {
            int32_t j = jb->zero_target[e];
            if (p[j] != APSP_NO_PREDECESSOR || (size_t)j == i || d[j] != d[k])
                continue;
            p[j] = k;
            missing--;
            queue[tail++] = j;
        }
    }
    if (missing == 0)
        return 0;
    for (size_t j = 0; j < v; j++)
        if (d[j] < APSP_INF && p[j] == APSP_NO_PREDECESSOR && j != i) {
            *bad = (mismatch){1, i, j, 1};
            return 1;
        }
    return 0;
}

/* Sources [first + b0, first + b1) of the job: the transposed distances of each block, the
 * in-edges of every vertex against the block (block_tight), then zero_search on the rows that
 * need it. */
static int block_slice(void *context, size_t b0, size_t b1) {
    const job *jb = context;
    size_t v = jb->in->vertices;
    int32_t *t = apsp_malloc(v * BLOCK * sizeof *t);
    int32_t *pt = apsp_malloc(v * BLOCK * sizeof *pt);
    int32_t *queue = apsp_malloc(v * sizeof *queue);
    if (!t || !pt || !queue) {
        free(t);
        free(pt);
        free(queue);
        return ENOMEM;
    }
    int result = 0;
    for (size_t blk = b0; blk < b1 && !result; blk++) {
        /* The unused lanes of a last block read an unreachable row: the queue, before use. */
        for (size_t k = 0; k < v; k++)
            queue[k] = APSP_INF;
        size_t r0 = blk * BLOCK, used = jb->count - r0 < BLOCK ? jb->count - r0 : BLOCK;
        const int32_t *rows[BLOCK];
        for (size_t b = 0; b < BLOCK; b++)
            rows[b] = b < used ? apsp_matrix_row(jb->d, jb->first + r0 + b) : queue;
        rows_to_lanes(rows, v, t);
        int32_t shorter[BLOCK], missing[BLOCK];
        block_tight(t, jb->in->start, jb->in->other, jb->in_weight, v, jb->zero_tight, pt, shorter,
                    missing);
        int32_t *outs[BLOCK];
        for (size_t b = 0; b < used; b++) {
            outs[b] = jb->pred + (r0 + b) * v;
            missing[b]--; /* the source */
        }
        lanes_to_rows(pt, v, used, outs);
        for (size_t b = 0; b < used && !result; b++)
            if (shorter[b]) {
                size_t j = first_shorter(t, jb->in, jb->in_weight, b);
                jb->bad[b0] = (mismatch){1, jb->first + r0 + b, j, 0};
                result = SEARCH_MISMATCH;
            }
        for (size_t b = 0; b < used && !result; b++)
            if (missing[b] > 0 && zero_search(jb, jb->first + r0 + b, jb->pred + (r0 + b) * v,
                                              queue, (size_t)missing[b], &jb->bad[b0]))
                result = SEARCH_MISMATCH;
    }
    free(t);
    free(pt);
    free(queue);
    return result;
}

/* The zero-weight edges of the in-adjacency, by source, for zero_search; and its weights as
 * int32. Returns 0, or -1 when out of memory. */
static int prepare_blocks(const adjacency *in, int32_t **weight, size_t **zero_start,
                          int32_t **zero_target, int32_t **zero_from, size_t *zero_sources) {
    size_t v = in->vertices, m = in->start[v], zeros = 0;
    *weight = apsp_malloc((m ? m : 1) * sizeof **weight);
    *zero_start = apsp_calloc(v + 1, sizeof **zero_start);
    for (size_t e = 0; e < m; e++)
        zeros += in->weight[e] == 0;
    *zero_target = apsp_malloc((zeros ? zeros : 1) * sizeof **zero_target);
    if (!*weight || !*zero_start || !*zero_target)
        return -1;
    for (size_t j = 0; j < v; j++)
        for (size_t e = in->start[j]; e < in->start[j + 1]; e++) {
            (*weight)[e] = (int32_t)in->weight[e];
            if (in->weight[e] == 0)
                (*zero_start)[(size_t)in->other[e] + 1]++;
        }
    size_t sources = 0;
    for (size_t k = 0; k < v; k++) {
        sources += (*zero_start)[k + 1] > 0;
        (*zero_start)[k + 1] += (*zero_start)[k];
    }
    *zero_from = apsp_malloc((sources ? sources : 1) * sizeof **zero_from);
    if (!*zero_from)
        return -1;
    *zero_sources = 0;
    for (size_t k = 0; k < v; k++)
        if ((*zero_start)[k + 1] > (*zero_start)[k])
            (*zero_from)[(*zero_sources)++] = (int32_t)k;
    size_t *fill = apsp_malloc((v ? v : 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, *zero_start, v * sizeof *fill);
    for (size_t j = 0; j < v; j++)
        for (size_t e = in->start[j]; e < in->start[j + 1]; e++)
            if (in->weight[e] == 0)
                (*zero_target)[fill[in->other[e]]++] = (int32_t)j;
    free(fill);
    return 0;
}

/* Whether the blocks can take the graph: int32 distances, every edge weight 0 <= w < INF. */
static int fits_blocks(const apsp_graph *g, const apsp_matrix *d) {
    if (d->dtype != APSP_INT32 || g->real_weight)
        return 0;
    for (size_t e = 0; e < g->edges; e++)
        if (g->weight[e] < 0 || g->weight[e] >= APSP_INF)
            return 0;
    return 1;
}

/* Why edge e's weight cannot be compared with the distances, or NULL. */
static const char *weight_unfit(const apsp_graph *g, const apsp_matrix *d, size_t e) {
    if (element_is_real(d->dtype))
        return isfinite(graph_weight_real(g, e)) ? NULL : "is not finite";
    if (g->real_weight)
        return "is real, but the distances are integers";
    int64_t inf = d->dtype == APSP_INT32 ? APSP_INF : APSP_INF64;
    return g->weight[e] > -inf && g->weight[e] < inf ? NULL : "is outside the distances' range";
}

/* Whether d(i,i) is 0. */
static int zero_diagonal(const apsp_matrix *d, size_t i) {
    const void *row = apsp_matrix_row_cells(d, i);
    switch (d->dtype) {
#define ZERO_AT(TYPE, NAME, C, NONE, REAL, DIGITS)                                                 \
    case TYPE:                                                                                     \
        return ((const C *)row)[i] == 0;
        ELEMENT_TYPES(ZERO_AT)
#undef ZERO_AT
    }
    return ((const int32_t *)row)[i] == 0;
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
    if (apsp_dtype_size(distances->dtype) == 0 ||
        (distances->n > 0 && (!distances->cells || distances->stride < distances->n)))
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
        const char *unfit = weight_unfit(graph, distances, e);
        if (unfit)
            return fail(error, APSP_ERR_USAGE, "predecessors: edge %zu (%d -> %d): weight %.17g %s",
                        e, (int)s, (int)t, graph_weight_real(graph, e), unfit);
    }
    char text[32];
    for (size_t r = 0; r < count; r++) {
        size_t i = first + r;
        if (!zero_diagonal(distances, i))
            return fail(error, APSP_ERR_USAGE,
                        "predecessors: the distance from vertex %zu to itself is %s, not 0", i,
                        matrix_cell_text(distances, i, i, text, sizeof text));
    }
    return APSP_OK;
}

/* The first mismatch a slice found (each wrote at its own start), as an error. */
static apsp_status report_mismatch(const apsp_matrix *distances, const mismatch *bad,
                                   apsp_error *error) {
    while (!bad->found)
        bad++;
    char d[32];
    matrix_cell_text(distances, bad->source, bad->vertex, d, sizeof d);
    if (bad->unreached)
        return fail(error, APSP_ERR_USAGE,
                    "predecessors: the distances are not the graph's shortest distances: vertex "
                    "%zu is at distance %s from %zu, but no path of that length reaches it",
                    bad->vertex, d, bad->source);
    return fail(error, APSP_ERR_USAGE,
                "predecessors: the distances are not the graph's shortest distances: an edge "
                "into vertex %zu gives a path from %zu shorter than %s",
                bad->vertex, bad->source, d);
}

/* The blocks, BLOCK sources per pass over the in-edges. */
static apsp_status run_blocks(const apsp_graph *graph, const apsp_matrix *distances, size_t first,
                              size_t count, unsigned threads, int32_t *pred, mismatch *bad,
                              apsp_error *error) {
    adjacency in;
    apsp_status status = adjacency_build(graph, 1, threads, &in, error);
    if (status != APSP_OK)
        return status;
    int32_t *in_weight = NULL, *zero_target = NULL, *zero_from = NULL;
    size_t *zero_start = NULL, zero_sources = 0;
    int zero_tight = adjacency_zero_acyclic(&in);
    if (zero_tight < 0 || prepare_blocks(&in, &in_weight, &zero_start, &zero_target, &zero_from,
                                         &zero_sources) != 0) {
        status = fail(error, APSP_ERR_NO_MEMORY, "predecessors: out of memory");
    } else {
        job jb = {distances,  first,       pred,      bad,          &in,   in_weight,
                  zero_start, zero_target, zero_from, zero_sources, count, zero_tight};
        int result = parallel_slices((count + BLOCK - 1) / BLOCK, threads, block_slice, &jb);
        if (result == SEARCH_MISMATCH)
            status = report_mismatch(distances, bad, error);
        else if (result != 0)
            status =
                fail(error, APSP_ERR_NO_MEMORY, "predecessors: out of memory for the searches");
    }
    free(in_weight);
    free(zero_start);
    free(zero_target);
    free(zero_from);
    adjacency_free(&in);
    return status;
}

/* A search per source over the out-edges. */
static apsp_status run_search(const apsp_graph *graph, const apsp_matrix *distances, size_t first,
                              size_t count, unsigned threads, double tolerance, int32_t *pred,
                              mismatch *bad, apsp_error *error) {
    adjacency out;
    apsp_status status = adjacency_build(graph, 0, threads, &out, error);
    if (status != APSP_OK)
        return status;
    search_job jb = {distances, first, pred, bad, &out, tolerance};
    int result = parallel_slices(count, threads, search_slice, &jb);
    if (result == SEARCH_MISMATCH)
        status = report_mismatch(distances, bad, error);
    else if (result != 0)
        status = fail(error, APSP_ERR_NO_MEMORY, "predecessors: out of memory for the searches");
    adjacency_free(&out);
    return status;
}

apsp_status predecessors_run(const apsp_graph *graph, const apsp_matrix *distances, size_t first,
                             size_t count, unsigned threads, double tolerance, int32_t *pred,
                             apsp_error *error) {
    apsp_status status = check_inputs(graph, distances, first, count, pred, error);
    if (status != APSP_OK || count == 0)
        return status;
    mismatch *bad = apsp_calloc(count, sizeof *bad);
    if (!bad)
        return fail(error, APSP_ERR_NO_MEMORY, "predecessors: out of memory");
    if (fits_blocks(graph, distances))
        status = run_blocks(graph, distances, first, count, threads, pred, bad, error);
    else
        status = run_search(graph, distances, first, count, threads, tolerance, pred, bad, error);
    free(bad);
    return status;
}

double predecessors_default_tolerance(const apsp_matrix *distances) {
    double epsilon = distances->dtype == APSP_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
    return 4 * epsilon * (distances->n > 1 ? (double)distances->n : 1.0);
}

apsp_status apsp_predecessors(const apsp_graph *graph, const apsp_matrix *distances, size_t first,
                              size_t count, unsigned threads, int32_t *pred, apsp_error *error) {
    double tolerance = distances ? predecessors_default_tolerance(distances) : 0;
    return predecessors_run(graph, distances, first, count, threads, tolerance, pred, error);
}
