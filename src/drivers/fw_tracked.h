/* Floyd-Warshall that keeps SciPy's predecessors as it goes (fw_tracked.c), for the graphs of a
 * batch (drivers/batch.c, solver/batch.c), where a search per source after the solve would cost
 * more than the solve. */
#ifndef APSP_DRIVERS_FW_TRACKED_H
#define APSP_DRIVERS_FW_TRACKED_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes of scratch fw_tracked needs for n vertices of `dtype`. */
size_t fw_tracked_scratch(apsp_dtype dtype, size_t n);

/* Solves the n x n cells of row pitch `stride` in place and fills pred (the same pitch) as
 * SciPy's floyd_warshall does: pred(i, j) = i for an edge, APSP_NO_PREDECESSOR on the diagonal
 * and off the edges; k, i, j ascending, a row whose d(i, k) is unreachable skipped, and a
 * strictly shorter d(i, k) + d(k, j) takes pred(k, j). The distances are the small solve's bits
 * (cpu/small.c): the integer types' negative form is the same sum kept within
 * [-marker, marker], and the floating-point types end with the same pass
 * d = min(d, D (+) D) over a copy D of the closed cells, its predecessors taken from a copy
 * too. `scratch` holds fw_tracked_scratch bytes. */
void fw_tracked(apsp_dtype dtype, void *cells, size_t n, size_t stride, int32_t *pred,
                void *scratch);

#endif
