/* The graph as a CSR adjacency for the predecessor derivation (adjacency.c). */
#ifndef APSP_BACKEND_ADJACENCY_H
#define APSP_BACKEND_ADJACENCY_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

/* The graph's edges by one end: row k, [start[k], start[k + 1]), holds the edges whose source
 * (out-adjacency) or target (in-adjacency) is k, by their other end. */
typedef struct adjacency {
    size_t vertices;
    size_t *start;
    int32_t *other;
    int64_t *weight; /* the graph's integer weights; NULL when they are real */
    double *real;    /* its real weights; NULL when they are integers */
} adjacency;

/* The adjacency by target (by_target) or by source, the least weight of each pair kept and
 * self-loops left out: they never lie on a shortest path. Built on up to `threads` threads
 * (parallel_slices': 0, every core); the same arrays whatever the count. */
apsp_status adjacency_build(const apsp_graph *graph, int by_target, unsigned threads, adjacency *a,
                            apsp_error *error);
void adjacency_free(adjacency *a); /* accepts a zeroed one */

#endif
