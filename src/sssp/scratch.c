/* The per-thread working memory of the sources' algorithms (sssp.h), and the output row. */
#include "base/error.h"
#include "base/fault.h"
#include "sssp/sssp.h"

#include <stdlib.h>

apsp_status sssp_scratch_init(sssp_scratch *s, size_t vertices, apsp_error *error) {
    size_t v = vertices ? vertices : 1;
    *s = (sssp_scratch){.dist = apsp_malloc(v * sizeof *s->dist),
                        .parent = apsp_malloc(v * sizeof *s->parent),
                        .queue = apsp_malloc(2 * v * sizeof *s->queue),
                        .queued = apsp_malloc(v * sizeof *s->queued)};
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
    *s = (sssp_scratch){0};
}

void sssp_store_row(const sssp_scratch *s, size_t vertices, int32_t source,
                    const int64_t *potential, int32_t *row) {
    const int64_t *d = s->dist;
    if (!potential) {
        for (size_t t = 0; t < vertices; t++)
            row[t] = d[t] == SSSP_UNREACHED ? APSP_INF : (int32_t)d[t];
        return;
    }
    for (size_t t = 0; t < vertices; t++)
        row[t] =
            d[t] == SSSP_UNREACHED ? APSP_INF : (int32_t)(d[t] - potential[source] + potential[t]);
}

void sssp_store_pred(const sssp_scratch *s, size_t vertices, int32_t source, int32_t *row) {
    for (size_t t = 0; t < vertices; t++)
        row[t] = s->dist[t] == SSSP_UNREACHED ? APSP_NO_PREDECESSOR : s->parent[t];
    row[source] = APSP_NO_PREDECESSOR;
}
