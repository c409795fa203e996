/* The graph's in-edges as the predecessor derivation on a device takes them: made by
 * src/paths/tight_csr.c, handed to a backend's paths->derive (src/backend/backend.h). */
#ifndef APSP_BACKEND_PATHS_CSR_H
#define APSP_BACKEND_PATHS_CSR_H

#include <stddef.h>
#include <stdint.h>

/* The edges into vertex j are source[start[j] .. start[j + 1]) with their least weights, in
 * increasing order of source; every weight 0 <= w < APSP_INF and no cycle of zero-weight edges,
 * so the first tight in-edge is a valid predecessor (include/apsp.h: apsp_solver_solve_paths). */
typedef struct paths_csr {
    size_t vertices, edges;
    int32_t *start; /* vertices + 1 */
    int32_t *source;
    int32_t *weight;
} paths_csr;

#endif
