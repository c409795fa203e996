/* A batch's graph as its edges for a device that makes the cells itself (drivers.h:
 * batch_edges_pack; cl/batch.cl's FROM_EDGES): the edges go up instead of the V^2 cells, in
 * graph-local numbers of a byte each (the device's graphs have at most 128 vertices), and the
 * refusals, the facts and whether they show the weight rule are the host fill's
 * (batch_fill.c), from the edges alone. */
#include "drivers/drivers.h"
#include "base/error.h"

#include <math.h>

/* Edges [from, to) of vertices numbered from `base` into out[] and (unless NULL) w_out[];
 * *facts as the fill's; *most_real the largest |weight| off the diagonal. Returns the first edge
 * refused, or SIZE_MAX. */
#define PACK_EDGES(NAME, CELL, FINITE, MAGNITUDE)                                                  \
    static size_t NAME(const apsp_batch_edges *e, size_t from, size_t to, int64_t base, size_t n,  \
                       uint16_t *out, void *weights, cell_facts *facts, double *most_real) {       \
        const CELL *weight = e->weight;                                                            \
        CELL *w_out = weights;                                                                     \
        for (size_t k = from; k < to; k++) {                                                       \
            const uint64_t s = (uint64_t)(e->source[k] - base),                                    \
                           t = (uint64_t)(e->target[k] - base);                                    \
            const CELL w = weight ? weight[k] : 1;                                                 \
            if (s >= n || t >= n || !(FINITE))                                                     \
                return k;                                                                          \
            facts->negative |= w < 0;                                                              \
            facts->most = MAGNITUDE(w) > facts->most ? MAGNITUDE(w) : facts->most;                 \
            if (s != t && fabs((double)w) > *most_real)                                            \
                *most_real = fabs((double)w);                                                      \
            out[k - from] = (uint16_t)(s | t << 8);                                                \
            if (weight)                                                                            \
                w_out[k - from] = w == 0 ? 0 : w; /* (-0 as +0, as the fill's cells are made) */   \
        }                                                                                          \
        return SIZE_MAX;                                                                           \
    }

#define INTEGER_MAGNITUDE(w) ((w) < 0 ? 0 - (uint64_t)(w) : (uint64_t)(w))
#define NO_MAGNITUDE(w) ((void)(w), (uint64_t)0)

PACK_EDGES(pack_i32, int32_t, 1, INTEGER_MAGNITUDE)
PACK_EDGES(pack_i64, int64_t, 1, INTEGER_MAGNITUDE)
PACK_EDGES(pack_f32, float, isfinite(w), NO_MAGNITUDE)
PACK_EDGES(pack_f64, double, isfinite(w), NO_MAGNITUDE)

typedef size_t (*pack_fn)(const apsp_batch_edges *e, size_t from, size_t to, int64_t base, size_t n,
                          uint16_t *out, void *weights, cell_facts *facts, double *most_real);

apsp_status batch_edges_pack(const batch_plan *plan, size_t g, uint16_t *edges, void *weights,
                             cell_facts *facts, int *suffice, apsp_error *error) {
    static const pack_fn pack[] = {
        [APSP_INT32] = pack_i32,
        [APSP_INT64] = pack_i64,
        [APSP_FLOAT32] = pack_f32,
        [APSP_FLOAT64] = pack_f64,
    };
    const apsp_batch *b = plan->batch;
    const apsp_batch_edges *e = b->edges;
    const size_t from = e->first[g], to = e->first[g + 1], n = b->vertices[g];
    if (to < from)
        return batch_edges_unordered(from, to, error);
    *facts = (cell_facts){0, 0};
    double most_real = 0;
    const size_t bad =
        pack[b->dtype](e, from, to, (int64_t)plan->nodes[g], n, edges, weights, facts, &most_real);
    if (bad != SIZE_MAX)
        return batch_edge_refused(plan, g, bad, error);
    *suffice = batch_facts_suffice(n, b->dtype, facts, most_real);
    return APSP_OK;
}
