/* The in-edges for the predecessor derivation on a device (tight_csr.h).
 *
 * Along predecessor pointers the distance from the source never rises: it falls over an edge of
 * positive weight and stays over one of weight 0. So when no weight is negative and the
 * zero-weight edges form no cycle, following any tight in-edge cannot loop, and the first one
 * in a fixed order is a valid and deterministic choice: the device and the host threads
 * (predecessors.c) both take the tight in-edge of least source. Zero-weight cycles need a search
 * (predecessors.c: zero_search), negative weights another; both stay on the host. */
#include "paths/tight_csr.h"
#include "base/error.h"
#include "base/fault.h"

#include <stdlib.h>
#include <string.h>

/* Kahn's algorithm run backwards over the in-adjacency: a vertex with no zero-weight out-edge
 * left is removed, which takes one from the count of each zero-weight in-neighbour; the edges
 * form no cycle exactly when every vertex is removed. */
int adjacency_zero_acyclic(const adjacency *in) {
    size_t v = in->vertices, removed = 0, tail = 0;
    size_t *out_zeros = apsp_calloc(v ? v : 1, sizeof *out_zeros);
    int32_t *queue = apsp_malloc((v ? v : 1) * sizeof *queue);
    if (!out_zeros || !queue) {
        free(out_zeros);
        free(queue);
        return -1;
    }
    for (size_t e = 0; e < in->start[v]; e++)
        out_zeros[in->other[e]] += in->weight[e] == 0;
    for (size_t k = 0; k < v; k++)
        if (out_zeros[k] == 0)
            queue[tail++] = (int32_t)k;
    for (size_t head = 0; head < tail; head++, removed++) {
        size_t j = (size_t)queue[head];
        for (size_t e = in->start[j]; e < in->start[j + 1]; e++)
            if (in->weight[e] == 0 && --out_zeros[in->other[e]] == 0)
                queue[tail++] = in->other[e];
    }
    free(out_zeros);
    free(queue);
    return removed == v;
}

void tight_csr_free(paths_csr *csr) {
    free(csr->start);
    free(csr->source);
    free(csr->weight);
    memset(csr, 0, sizeof *csr);
}

static int weights_fit(const apsp_graph *g) { /* self-loops aside: they are ignored */
    for (size_t e = 0; e < g->edges; e++)
        if (g->source[e] != g->target[e] && (g->weight[e] < 0 || g->weight[e] >= APSP_INF))
            return 0;
    return 1;
}

apsp_status tight_csr_make(const apsp_graph *graph, unsigned threads, paths_csr *csr, int *eligible,
                           apsp_error *error) {
    memset(csr, 0, sizeof *csr);
    *eligible = 0;
    if (!weights_fit(graph) || graph->edges > INT32_MAX)
        return APSP_OK;
    adjacency in;
    apsp_status status = adjacency_build(graph, 1, threads, &in, error);
    if (status != APSP_OK)
        return status;
    size_t v = graph->vertices, m = in.start[v];
    int acyclic = adjacency_zero_acyclic(&in);
    if (acyclic == 1) {
        csr->vertices = v;
        csr->edges = m;
        csr->start = apsp_malloc((v + 1) * sizeof *csr->start);
        csr->source = apsp_malloc((m ? m : 1) * sizeof *csr->source);
        csr->weight = apsp_malloc((m ? m : 1) * sizeof *csr->weight);
    }
    if (acyclic < 0 || (acyclic == 1 && (!csr->start || !csr->source || !csr->weight))) {
        tight_csr_free(csr);
        status = fail(error, APSP_ERR_NO_MEMORY, "predecessors: out of memory for %zu in-edges", m);
    } else if (acyclic == 1) {
        for (size_t j = 0; j <= v; j++)
            csr->start[j] = (int32_t)in.start[j];
        for (size_t e = 0; e < m; e++) {
            csr->source[e] = in.other[e];
            csr->weight[e] = (int32_t)in.weight[e];
        }
        *eligible = 1;
    }
    adjacency_free(&in);
    return status;
}
