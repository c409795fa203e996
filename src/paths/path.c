/* One shortest path read off a predecessor row (apsp_path in include/apsp.h). */
#include "apsp.h"
#include "base/error.h"

#include <string.h>

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
