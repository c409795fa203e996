/* Distances from chosen sources on a sparse graph: the family of algorithms beside blocked
 * Floyd-Warshall (docs/architecture.md, "Chosen sources"). Dijkstra per source over the graph's
 * out-adjacency (paths/adjacency.h: CSR by source, the least weight of repeated edges, no
 * self-loops), Bellman-Ford, and Johnson (Bellman-Ford potentials, then Dijkstra on the
 * reweighted edges). Integer weights within the rule of the distances' type (base/graph.h) are
 * summed in int64, real ones in double; rows are written in the type asked for, as the
 * Floyd-Warshall path writes it: APSP_INF, APSP_INF64 or +inf where there is no path. */
#ifndef APSP_SSSP_H
#define APSP_SSSP_H

#include "apsp.h"
#include "paths/adjacency.h"
#include "sssp/radix_heap.h"

#include <stddef.h>
#include <stdint.h>

/* What one thread needs for any number of sources, made once per solve. */
typedef struct sssp_scratch {
    int64_t *dist;     /* one per vertex; SSSP_UNREACHED where no path is known */
    double *real_dist; /* the same memory for real weights; +inf where no path is known (a
                          solve writes each cell in its type before it reads it) */
    int32_t *parent;   /* the vertex whose edge last lowered dist (read only where dist is) */
    int32_t *queue;    /* Bellman-Ford: this round's frontier and the next one's, V each */
    uint8_t *queued;   /* Bellman-Ford: whether a vertex is in the next frontier */
    radix_heap heap;   /* Dijkstra */
} sssp_scratch;

#define SSSP_UNREACHED INT64_MAX

apsp_status sssp_scratch_init(sssp_scratch *s, size_t vertices, apsp_error *error);
void sssp_scratch_free(sssp_scratch *s); /* accepts a zeroed one */

/* Dijkstra from `source` over g with `weights` (g->weight, or Johnson's reweighted ones; none
 * negative) into s->dist. Returns 0, or 1 when its queue found no memory. */
int dijkstra_distances(const adjacency *g, const int64_t *weights, int32_t source, sssp_scratch *s);
/* The same over real weights (g->real, or Johnson's reweighted ones, none below 0) into
 * s->real_dist. */
int dijkstra_distances_real(const adjacency *g, const double *weights, int32_t source,
                            sssp_scratch *s);

/* Bellman-Ford over g (integer weights of any sign) into s->dist: from `source`, or with
 * source = -1 from a virtual vertex with a 0-weight edge to every vertex (Johnson's potentials).
 * Rounds relax the out-edges of the vertices lowered in the round before, so a round costs what
 * changed. Returns 1 when a negative cycle is reachable (a vertex still lowered in round V), with
 * a vertex on it in *cycle_vertex; else 0. */
int bellman_ford_distances(const adjacency *g, int32_t source, sssp_scratch *s,
                           int32_t *cycle_vertex);
/* The same over g->real into s->real_dist. */
int bellman_ford_distances_real(const adjacency *g, int32_t source, sssp_scratch *s,
                                int32_t *cycle_vertex);

/* s->parent as a predecessor row (SciPy's return_predecessors): APSP_NO_PREDECESSOR for the
 * source and where unreachable. The last edge that lowered a vertex lies on a shortest path
 * and the parents form a tree: Dijkstra's by the order of the pops, Bellman-Ford's because,
 * without a negative cycle, a cycle of parents would have negative weight. */
void sssp_store_pred(const sssp_scratch *s, size_t vertices, int32_t source, int real,
                     int32_t *row);

/* The options the solver was made with (solver.c). */
const apsp_options *solver_options(const apsp_solver *solver);

/* Johnson's potentials h, in the weights' kind; both NULL for the other methods. */
typedef struct sssp_potential {
    const int64_t *integer;
    const double *real;
} sssp_potential;

/* The search's distances (s->real_dist where `real`, else s->dist) as a row of the output, of
 * `dtype`: the type's unreachable marker where unreachable; with potentials (Johnson) the
 * reweighted distance d'(source, t) back to d'(source, t) - h(source) + h(t). Integer distances
 * are exact in int64 and converted once; real ones are rounded once more for float32. */
void sssp_store_row(const sssp_scratch *s, size_t vertices, int32_t source,
                    const sssp_potential *potential, int real, apsp_dtype dtype, void *row);

#endif
