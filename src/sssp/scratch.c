/* The per-thread working memory of the sources' algorithms (sssp.h), and the output row. */
#include "base/element_types.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "sssp/sssp.h"

#include <math.h>
#include <stdlib.h>

uint64_t sssp_scratch_bytes(size_t vertices) {
    const sssp_scratch *s = NULL; /* (for the sizes of its arrays only) */
    uint64_t v = vertices ? vertices : 1;
    return (v + 1) * sizeof *s->dist + v * sizeof *s->parent + 2 * v * sizeof *s->queue +
           v * sizeof *s->queued;
}

apsp_status sssp_scratch_init(sssp_scratch *s, size_t vertices, apsp_error *error) {
    size_t v = vertices ? vertices : 1;
    *s = (sssp_scratch){.dist = alloc_large((v + 1) * sizeof *s->dist), /* narrow's V + 1 */
                        .parent = apsp_malloc(v * sizeof *s->parent),
                        .queue = apsp_malloc(2 * v * sizeof *s->queue),
                        .queued = apsp_malloc(v * sizeof *s->queued)};
    s->real_dist = (double *)s->dist;
    s->narrow = (sssp_vertex *)s->dist;
    s->signed_dist = (int32_t *)s->dist;
    if (s->dist && s->parent && s->queue && s->queued)
        return APSP_OK;
    sssp_scratch_free(s);
    return fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for a thread's %zu vertices",
                vertices);
}

void sssp_scratch_free(sssp_scratch *s) {
    free(s->dist);
    free(s->parent);
    free(s->queue);
    free(s->queued);
    radix_free(&s->heap);
    radix32_free(&s->narrow_heap);
    bucket_queue_free(&s->narrow_queue);
    *s = (sssp_scratch){0};
}

int sssp_scratch_narrow(sssp_scratch *s, const adjacency *g, int64_t max_weight) {
    for (size_t t = 0; t <= g->vertices; t++)
        s->narrow[t].first_arc = (uint32_t)g->start[t];
    return max_weight < SSSP_BUCKET_SPAN
               ? bucket_queue_init(&s->narrow_queue, (uint32_t)max_weight + 1)
               : 0;
}

void sssp_put_integer(void *row, size_t t, apsp_dtype dtype, int64_t d, int unreached) {
    switch (dtype) {
#define PUT_INTEGER(TYPE, NAME, C, NONE, REAL, DIGITS)                                             \
    case TYPE:                                                                                     \
        ((C *)row)[t] = unreached ? (C)(NONE) : (C)d;                                              \
        break;
        ELEMENT_TYPES(PUT_INTEGER)
#undef PUT_INTEGER
    }
}

void sssp_put_real(void *row, size_t t, apsp_dtype dtype, double d) {
    if (dtype == APSP_FLOAT32)
        ((float *)row)[t] = (float)d;
    else
        ((double *)row)[t] = d;
}

/* The narrow path's row: its distances are exact in int64 as they are in uint32. int32 rows
 * without potentials, the common case, take a loop of their own that the compiler vectorises. */
static void store_narrow_row(const sssp_vertex *d, size_t vertices, int32_t source,
                             const int64_t *h, apsp_dtype dtype, void *row) {
    if (dtype == APSP_INT32 && !h) {
        int32_t *cells = row;
        for (size_t t = 0; t < vertices; t++)
            cells[t] = d[t].dist == SSSP_NARROW_UNREACHED ? APSP_INF : (int32_t)d[t].dist;
        return;
    }
    for (size_t t = 0; t < vertices; t++) {
        int unreached = d[t].dist == SSSP_NARROW_UNREACHED;
        int64_t dt = (int64_t)d[t].dist;
        sssp_put_integer(row, t, dtype, h && !unreached ? dt - h[source] + h[t] : dt, unreached);
    }
}

void sssp_store_row(const sssp_scratch *s, size_t vertices, int32_t source,
                    const sssp_potential *potential, sssp_kind kind, apsp_dtype dtype, void *row) {
    if (kind == SSSP_REAL) {
        const double *d = s->real_dist, *h = potential->real;
        for (size_t t = 0; t < vertices; t++)
            sssp_put_real(row, t, dtype, !h || isinf(d[t]) ? d[t] : d[t] - h[source] + h[t]);
        return;
    }
    if (kind == SSSP_NARROW) {
        store_narrow_row(s->narrow, vertices, source, potential->integer, dtype, row);
        return;
    }
    if (kind == SSSP_SIGNED) { /* (Bellman-Ford alone: no potentials) */
        for (size_t t = 0; t < vertices; t++)
            sssp_put_integer(row, t, dtype, s->signed_dist[t],
                             s->signed_dist[t] == SSSP_SIGNED_UNREACHED);
        return;
    }
    const int64_t *d = s->dist, *h = potential->integer;
    for (size_t t = 0; t < vertices; t++) {
        int unreached = d[t] == SSSP_UNREACHED;
        sssp_put_integer(row, t, dtype, h && !unreached ? d[t] - h[source] + h[t] : d[t],
                         unreached);
    }
}

/* Whether the search of `kind` reached t. */
static int reached(const sssp_scratch *s, sssp_kind kind, size_t t) {
    switch (kind) {
    case SSSP_NARROW:
        return s->narrow[t].dist != SSSP_NARROW_UNREACHED;
    case SSSP_REAL:
        return !isinf(s->real_dist[t]);
    case SSSP_SIGNED:
        return s->signed_dist[t] != SSSP_SIGNED_UNREACHED;
    default:
        return s->dist[t] != SSSP_UNREACHED;
    }
}

void sssp_store_pred(const sssp_scratch *s, size_t vertices, int32_t source, sssp_kind kind,
                     int32_t *row) {
    for (size_t t = 0; t < vertices; t++)
        row[t] = reached(s, kind, t) ? s->parent[t] : APSP_NO_PREDECESSOR;
    row[source] = APSP_NO_PREDECESSOR;
}
