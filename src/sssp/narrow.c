/* The narrow integer path of Dijkstra (sssp.h): the rule that says when 32-bit distances are
 * exact, and the packed arcs it searches. */
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "sssp/sssp.h"

#include <stdlib.h>

int sssp_narrow_fits(size_t vertices, int64_t max_weight) {
    /* (V - 1) w < INT32_MAX, i.e. (V - 1) w <= INT32_MAX - 1, without the product's overflow */
    return vertices < 2 || max_weight <= (int64_t)(INT32_MAX - 1) / (int64_t)(vertices - 1);
}

static int64_t largest_weight(const int64_t *weights, size_t edges) {
    int64_t largest = 0;
    for (size_t e = 0; e < edges; e++)
        largest = weights[e] > largest ? weights[e] : largest;
    return largest;
}

apsp_status sssp_narrow_arcs(const adjacency *g, const int64_t *weights, sssp_arc **arcs,
                             int64_t *largest_out, int64_t *bound, apsp_error *error) {
    size_t v = g->vertices, edges = g->start[v];
    int64_t largest = *largest_out = largest_weight(weights, edges);
    *bound = v < 2                                    ? 0
             : largest > INT64_MAX / (int64_t)(v - 1) ? INT64_MAX
                                                      : largest * (int64_t)(v - 1);
    *arcs = NULL;
    if (!sssp_narrow_fits(v, largest) || edges > UINT32_MAX) /* (sssp_vertex's offsets) */
        return APSP_OK;
    *arcs = alloc_large((edges ? edges : 1) * sizeof **arcs);
    if (!*arcs)
        return fail(error, APSP_ERR_NO_MEMORY, "dijkstra: out of memory for %zu arcs", edges);
    for (size_t e = 0; e < edges; e++) /* every weight is at most (INT32_MAX - 1) / (V - 1) */
        (*arcs)[e] = (sssp_arc){g->other[e], (uint32_t)weights[e]};
    return APSP_OK;
}
