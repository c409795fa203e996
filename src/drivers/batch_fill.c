/* A batch's graph made from its edges (apsp_batch_edges) on the thread that solves it
 * (drivers.h: batch_fill), so that its cells are written once, while in that core's cache, not
 * in a pass over the whole batch beforehand. */
#include "drivers/drivers.h"
#include "base/error.h"

#include <inttypes.h>
#include <math.h>

/* The block of `rows` x `rows` cells (the graph's n x n, or the pitch's) with no edge: 0 on the
 * graph's diagonal, the marker elsewhere; then the edges [from, to) of vertices numbered from
 * `base`, the least weight kept, self-loops ignored; into *facts whether a weight is negative
 * and (integers) the largest |weight|. Returns the first edge refused (an endpoint outside the
 * graph, a weight that is not finite), or SIZE_MAX. */
#define FILL_GRAPH(NAME, CELL, MARKER, FINITE, MAGNITUDE)                                          \
    static size_t NAME(const apsp_batch_edges *e, size_t from, size_t to, int64_t base,            \
                       const apsp_matrix *m, size_t rows, cell_facts *facts) {                     \
        CELL *c = m->cells;                                                                        \
        const CELL *weight = e->weight;                                                            \
        for (size_t i = 0; i < rows; i++) { /* (a plain store loop: vectorised) */                 \
            for (size_t j = 0; j < rows; j++)                                                      \
                c[i * m->stride + j] = (MARKER);                                                   \
            if (i < m->n)                                                                          \
                c[i * m->stride + i] = 0;                                                          \
        }                                                                                          \
        for (size_t k = from; k < to; k++) {                                                       \
            const uint64_t s = (uint64_t)(e->source[k] - base),                                    \
                           t = (uint64_t)(e->target[k] - base);                                    \
            const CELL w = weight ? weight[k] : 1;                                                 \
            if (s >= m->n || t >= m->n || !(FINITE))                                               \
                return k;                                                                          \
            facts->negative |= w < 0;                                                              \
            facts->most = MAGNITUDE(w) > facts->most ? MAGNITUDE(w) : facts->most;                 \
            if (s == t)                                                                            \
                continue;                                                                          \
            CELL *st = c + s * m->stride + t, *ts = c + t * m->stride + s;                         \
            *st = w < *st ? w : *st;                                                               \
            if (e->undirected)                                                                     \
                *ts = w < *ts ? w : *ts;                                                           \
        }                                                                                          \
        return SIZE_MAX;                                                                           \
    }

/* |w| of an integer, defined for the least one too; 0 for the floating-point types (whose rule
 * the cells' check applies). */
#define INTEGER_MAGNITUDE(w) ((w) < 0 ? 0 - (uint64_t)(w) : (uint64_t)(w))
#define NO_MAGNITUDE(w) ((void)(w), (uint64_t)0)

FILL_GRAPH(fill_i32, int32_t, APSP_INF, 1, INTEGER_MAGNITUDE)
FILL_GRAPH(fill_i64, int64_t, APSP_INF64, 1, INTEGER_MAGNITUDE)
FILL_GRAPH(fill_f32, float, INFINITY, isfinite(w), NO_MAGNITUDE)
FILL_GRAPH(fill_f64, double, INFINITY, isfinite(w), NO_MAGNITUDE)

typedef size_t (*fill_fn)(const apsp_batch_edges *e, size_t from, size_t to, int64_t base,
                          const apsp_matrix *m, size_t rows, cell_facts *facts);

apsp_status batch_fill_to(const batch_plan *plan, size_t g, const apsp_matrix *m, size_t rows,
                          cell_facts *facts, apsp_error *error) {
    static const fill_fn fill[] = {
        [APSP_INT32] = fill_i32,
        [APSP_INT64] = fill_i64,
        [APSP_FLOAT32] = fill_f32,
        [APSP_FLOAT64] = fill_f64,
    };
    const apsp_batch *b = plan->batch;
    const apsp_batch_edges *e = b->edges;
    const size_t from = e->first[g], to = e->first[g + 1];
    if (to < from)
        return batch_edges_unordered(from, to, error);
    const int64_t base = (int64_t)plan->nodes[g];
    *facts = (cell_facts){0, 0};
    const size_t bad = fill[b->dtype](e, from, to, base, m, rows, facts);
    return bad == SIZE_MAX ? APSP_OK : batch_edge_refused(plan, g, bad, error);
}

apsp_status batch_edge_refused(const batch_plan *plan, size_t g, size_t bad, apsp_error *error) {
    const apsp_batch_edges *e = plan->batch->edges;
    const int64_t base = (int64_t)plan->nodes[g];
    const uint64_t s = (uint64_t)(e->source[bad] - base), t = (uint64_t)(e->target[bad] - base);
    if (s >= plan->batch->vertices[g] || t >= plan->batch->vertices[g])
        return batch_edge_outside(plan, g, bad, error);
    return fail(error, APSP_ERR_USAGE, "edge %zu: its weight is not a finite number", bad);
}

/* The unreachable marker into `count` cells of the type from `at`. */
static void put_markers(apsp_dtype t, char *at, size_t count) {
    for (size_t k = 0; k < count; k++)
        switch (t) {
        case APSP_INT32:
            ((int32_t *)at)[k] = APSP_INF;
            break;
        case APSP_INT64:
            ((int64_t *)at)[k] = APSP_INF64;
            break;
        case APSP_FLOAT32:
            ((float *)at)[k] = INFINITY;
            break;
        default:
            ((double *)at)[k] = INFINITY;
            break;
        }
}

void batch_fill_padding(const batch_plan *plan, size_t g) {
    const apsp_matrix m = batch_view(plan, g);
    const size_t pitch = plan->batch->pitch, cell = apsp_dtype_size(m.dtype);
    for (size_t i = 0; i < pitch; i++) {
        const size_t from = i < m.n ? m.n : 0;
        put_markers(m.dtype, (char *)m.cells + (i * pitch + from) * cell, pitch - from);
    }
}

apsp_status batch_fill(const batch_plan *plan, size_t g, cell_facts *facts, apsp_error *error) {
    const apsp_batch *b = plan->batch;
    const apsp_matrix m = batch_view(plan, g);
    const size_t rows = b->pitch ? b->pitch : m.n;
    int32_t *pred = batch_pred(plan, g);
    for (size_t i = 0; pred && i < rows * m.stride; i++)
        pred[i] = APSP_NO_PREDECESSOR;
    return batch_fill_to(plan, g, &m, rows, facts, error);
}

apsp_status batch_edges_unordered(size_t from, size_t to, apsp_error *error) {
    return fail(error, APSP_ERR_USAGE, "edges from %zu to %zu: first must not decrease", from, to);
}

apsp_status batch_edge_outside(const batch_plan *plan, size_t g, size_t bad, apsp_error *error) {
    const apsp_batch_edges *e = plan->batch->edges;
    const int64_t base = (int64_t)plan->nodes[g];
    return fail(error, APSP_ERR_USAGE,
                "edge %zu (%" PRId64 " -> %" PRId64 ") leaves the graph's vertices [%" PRId64
                ", %" PRId64 ")",
                bad, e->source[bad], e->target[bad], base,
                base + (int64_t)plan->batch->vertices[g]);
}
