/* apsp_predecessors_csr: the graph in compressed sparse rows (SciPy's csgraph form), with weights
 * of the distances' type, made into an edge list (base/graph.h) for the derivation that
 * apsp_predecessors runs (predecessors.c). */
#include "base/error.h"
#include "base/graph.h"
#include "paths/predecessors.h"
#include "base/element_types.h"

#include <math.h>
#include <string.h>

/* The rows' bounds: indptr[0] >= 0 and never decreasing. Returns the edge count, or -1 with the
 * error filled. */
static int64_t csr_edges(size_t v, const int64_t *indptr, apsp_error *error) {
    if (indptr[0] < 0) {
        fail(error, APSP_ERR_USAGE, "predecessors: indptr[0] is %lld, negative",
             (long long)indptr[0]);
        return -1;
    }
    for (size_t k = 0; k < v; k++)
        if (indptr[k + 1] < indptr[k]) {
            fail(error, APSP_ERR_USAGE,
                 "predecessors: indptr[%zu] = %lld is less than indptr[%zu] = %lld", k + 1,
                 (long long)indptr[k + 1], k, (long long)indptr[k]);
            return -1;
        }
    return indptr[v] - indptr[0];
}

/* The edge list of the rows, weights as the distances' type says. */
static apsp_status csr_graph(const apsp_matrix *d, const int64_t *indptr, const int32_t *indices,
                             const void *weights, size_t edges, apsp_graph **out,
                             apsp_error *error) {
    apsp_graph *g;
    apsp_status status = apsp_graph_create(d->n, edges, &g, error);
    int real = element_is_real(d->dtype);
    if (status == APSP_OK && real)
        status = graph_make_real(g, error);
    if (status != APSP_OK) {
        apsp_graph_destroy(g);
        return status;
    }
    size_t base = (size_t)indptr[0];
    for (size_t k = 0; k < d->n; k++)
        for (size_t e = (size_t)indptr[k] - base; e < (size_t)indptr[k + 1] - base; e++)
            g->source[e] = (int32_t)k;
    if (edges > 0)
        memcpy(g->target, indices + base, edges * sizeof *g->target);
    for (size_t e = 0; e < edges; e++) {
        size_t at = base + e;
        switch (d->dtype) {
#define COPY_WEIGHT(TYPE, NAME, C, NONE, REAL, DIGITS)                                             \
    case TYPE:                                                                                     \
        if (REAL)                                                                                  \
            g->real_weight[e] = (double)((const C *)weights)[at];                                  \
        else                                                                                       \
            g->weight[e] = (int64_t)((const C *)weights)[at];                                      \
        break;
            ELEMENT_TYPES(COPY_WEIGHT)
#undef COPY_WEIGHT
        }
    }
    g->edges = edges;
    *out = g;
    return APSP_OK;
}

apsp_status apsp_predecessors_csr(const apsp_matrix *distances, const int64_t *indptr,
                                  const int32_t *indices, const void *weights, double tolerance,
                                  size_t first, size_t count, unsigned threads, int32_t *pred,
                                  apsp_error *error) {
    if (!distances || !indptr || !pred)
        return fail(error, APSP_ERR_USAGE, "predecessors: the %s is NULL",
                    !distances ? "distance matrix"
                    : !indptr  ? "indptr array"
                               : "predecessor array");
    if (apsp_dtype_size(distances->dtype) == 0)
        return fail(error, APSP_ERR_USAGE, "predecessors: the distance matrix is malformed");
    if (!(tolerance >= 0) || isinf(tolerance))
        return fail(error, APSP_ERR_USAGE,
                    "predecessors: tolerance %g: expected a finite number >= 0", tolerance);
    int64_t edges = csr_edges(distances->n, indptr, error);
    if (edges < 0)
        return APSP_ERR_USAGE;
    if (edges > 0 && (!indices || !weights))
        return fail(error, APSP_ERR_USAGE, "predecessors: %lld edges but no %s array",
                    (long long)edges, !indices ? "indices" : "weights");
    apsp_graph *g = NULL;
    apsp_status status = csr_graph(distances, indptr, indices, weights, (size_t)edges, &g, error);
    if (status == APSP_OK)
        status = predecessors_run(g, distances, first, count, threads, tolerance, pred, error);
    apsp_graph_destroy(g);
    return status;
}
