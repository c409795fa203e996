/* The in-edges of a graph as the predecessor derivation on a device takes them (tight_csr.c),
 * and the test of when any tight in-edge will do. */
#ifndef APSP_PATHS_TIGHT_CSR_H
#define APSP_PATHS_TIGHT_CSR_H

#include "apsp.h"
#include "backend/adjacency.h"
#include "backend/paths_csr.h"

/* Whether the zero-weight edges of the in-adjacency form no cycle (self-loops are not in it):
 * 1 when acyclic, 0 when not, -1 when out of memory. O(V + E). */
int adjacency_zero_acyclic(const adjacency *in);

/* The graph's in-edges as int32 CSR arrays (backend/paths_csr.h), when the derivation may take
 * the first tight in-edge: every weight 0 <= w < APSP_INF and no cycle of zero-weight edges.
 * *eligible = 0 (and nothing made) otherwise. The edges of each target are in increasing order of
 * source, as adjacency_build leaves them. */
apsp_status tight_csr_make(const apsp_graph *graph, unsigned threads, paths_csr *csr, int *eligible,
                           apsp_error *error);
void tight_csr_free(paths_csr *csr); /* accepts a zeroed one */

#endif
