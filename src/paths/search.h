/* The predecessors of one source at a time by a search over tight out-edges (search.c), for
 * distances of any type: the path of negative weights and of every type but int32. */
#ifndef APSP_PATHS_SEARCH_H
#define APSP_PATHS_SEARCH_H

#include "apsp.h"
#include "backend/adjacency.h"

#include <stddef.h>
#include <stdint.h>

/* Where the distances are not the graph's shortest distances. */
typedef struct mismatch {
    int found;
    size_t source, vertex;
    int unreached; /* 1: d(source, vertex) is finite but no tight path reaches it;
                      0: an edge into vertex is shorter than d(source, vertex) */
} mismatch;

/* Sources [first, first + count) of the distances d, their predecessor rows into pred (row r is
 * source first + r), over the out-adjacency. An edge (k, j) of weight w is tight when d(i,k) is
 * finite and d(i,k) + w = d(i,j): exactly for the integer types; for the floating-point ones
 * within tolerance * max(1, |d(i,j)|), and shorter only beyond that. */
typedef struct search_job {
    const apsp_matrix *d;
    size_t first;
    int32_t *pred;
    mismatch *bad; /* one per slice start: filled by the slice that found one */
    const adjacency *out;
    double tolerance;
} search_job;

enum { SEARCH_MISMATCH = -1 };

/* A slice_fn (base/parallel.h) over the sources of a search_job: 0, SEARCH_MISMATCH (with
 * bad[begin] filled), or ENOMEM. */
int search_slice(void *context, size_t begin, size_t end);

#endif
