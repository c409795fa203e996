/* The narrow integer path of the sparse methods (sssp.h): the bound that says when 32-bit
 * distances are exact, and the packed arcs the searches read (the signed ones too). */
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/util.h"
#include "sssp/sssp.h"

#include <stdlib.h>

int sssp_narrow_fits(uint64_t bound) {
    return bound <= (uint64_t)INT32_MAX - 1;
}

static int64_t largest_weight(const int64_t *weights, size_t edges) {
    int64_t largest = 0;
    for (size_t e = 0; e < edges; e++)
        largest = weights[e] > largest ? weights[e] : largest;
    return largest;
}

apsp_status sssp_narrow_arcs(const adjacency *g, const int64_t *weights, unsigned threads,
                             sssp_arc **arcs, int64_t *largest, uint64_t *bound,
                             apsp_error *error) {
    size_t v = g->vertices, edges = g->start[v];
    *largest = largest_weight(weights, edges);
    *bound = weights_path_bound(weights, NULL, NULL, edges, v, threads);
    *arcs = NULL;
    if (!sssp_narrow_fits(*bound) || edges > UINT32_MAX) /* (sssp_vertex's offsets) */
        return APSP_OK;
    *arcs = alloc_large((edges ? edges : 1) * sizeof **arcs);
    if (!*arcs)
        return fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for %zu arcs", edges);
    for (size_t e = 0; e < edges; e++) /* every weight is at most the bound, below INT32_MAX */
        (*arcs)[e] = (sssp_arc){g->other[e], (uint32_t)weights[e]};
    return APSP_OK;
}

apsp_status sssp_signed_arcs(const adjacency *g, sssp_signed_arc **arcs, apsp_error *error) {
    size_t v = g->vertices, edges = g->start[v];
    weight_rule rule = weight_rule_for(v, APSP_INT32);
    *arcs = NULL;
    for (size_t e = 0; e < edges; e++)
        if (g->weight[e] < rule.least || g->weight[e] > rule.most)
            return APSP_OK;
    *arcs = alloc_large((edges ? edges : 1) * sizeof **arcs);
    if (!*arcs)
        return fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for %zu arcs", edges);
    for (size_t e = 0; e < edges; e++) /* (within int32 by the rule) */
        (*arcs)[e] = (sssp_signed_arc){g->other[e], (int32_t)g->weight[e]};
    return APSP_OK;
}
