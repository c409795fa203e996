/* The derivation behind apsp_predecessors and apsp_predecessors_csr (predecessors.c). */
#ifndef APSP_PATHS_PREDECESSORS_H
#define APSP_PATHS_PREDECESSORS_H

#include "apsp.h"

/* apsp_predecessors with the floating-point types' tolerance given (ignored for the integer
 * types): an edge is tight within tolerance * max(1, |d(i,j)|). */
apsp_status predecessors_run(const apsp_graph *graph, const apsp_matrix *distances, size_t first,
                             size_t count, unsigned threads, double tolerance, int32_t *pred,
                             apsp_error *error);

/* apsp_predecessors' tolerance for floating-point distances: 4 V epsilon of the type, a bound
 * on the rounding of sums of up to V - 1 non-negative weights associated in another order. */
double predecessors_default_tolerance(const apsp_matrix *distances);

#endif
