/* Distances from chosen sources on a sparse graph: the family of algorithms beside blocked
 * Floyd-Warshall (docs/design/sources.md, "Chosen sources"). Dijkstra per source over the graph's
 * out-adjacency (backend/adjacency.h: CSR by source, the least weight of repeated edges, no
 * self-loops), Bellman-Ford, and Johnson (Bellman-Ford potentials, then Dijkstra on the
 * reweighted edges). Integer weights within the rule of the distances' type (base/graph.h) are
 * summed in int64, real ones in double; rows are written in the type asked for, as the
 * Floyd-Warshall path writes it: APSP_INF, APSP_INF64 or +inf where there is no path.
 *
 * The narrow path: when every distance a search can reach is below INT32_MAX (sssp_narrow_fits:
 * the sum of the V - 1 largest weights actually searched, Johnson's reweighted ones for Johnson),
 * integer Dijkstra, and Bellman-Ford on non-negative weights, run on uint32 distances, each beside
 * its vertex's first-arc offset, over (target, weight) arcs packed in 8 bytes, with Dial's bucket
 * queue (small weights) or a 32-bit radix heap: half the bytes of the int64 path per vertex, per
 * edge and per queue item or less; the rows it writes are the int64 path's, byte for byte
 * (docs/design/sources.md, "Chosen sources"). Bellman-Ford on negative weights within int32's
 * per-weight rule runs on int32 distances (bellman_ford_distances_signed). */
#ifndef APSP_SSSP_H
#define APSP_SSSP_H

#include "apsp.h"
#include "backend/adjacency.h"
#include "sssp/bucket_queue.h"
#include "sssp/radix_heap.h"

#include <stddef.h>
#include <stdint.h>

/* An out-edge of the narrow path: its target and its weight, one 8-byte load (narrow.c). */
typedef struct sssp_arc {
    int32_t target;
    uint32_t weight;
} sssp_arc;

/* A vertex of the narrow path: its distance (SSSP_NARROW_UNREACHED where no path is known) and
 * the offset of its first arc, so that the vertex's cache line holds both (dijkstra.c). */
typedef struct sssp_vertex {
    uint32_t dist;
    uint32_t first_arc;
} sssp_vertex;

/* An out-edge of the signed narrow path (Bellman-Ford where a weight is negative and every
 * weight is within int32's rule: bellman_ford_distances_signed), indexed as g's edges. */
typedef struct sssp_signed_arc {
    int32_t target;
    int32_t weight;
} sssp_signed_arc;

/* Which distances a search keeps, and so which of the scratch's views a row is read from. */
typedef enum sssp_kind {
    SSSP_WIDE,   /* int64, s->dist */
    SSSP_NARROW, /* uint32, s->narrow[t].dist (within sssp_narrow_fits) */
    SSSP_REAL,   /* double, s->real_dist */
    SSSP_SIGNED, /* int32, s->signed_dist (bellman_ford_distances_signed) */
} sssp_kind;

/* What one thread needs for any number of sources, made once per solve. */
typedef struct sssp_scratch {
    int64_t *dist;        /* one per vertex; SSSP_UNREACHED where no path is known */
    double *real_dist;    /* the same memory for real weights; +inf where no path is known (a
                             solve writes each cell in its type before it reads it) */
    sssp_vertex *narrow;  /* the same memory for the narrow path: V + 1 vertices, whose offsets
                             sssp_scratch_narrow sets */
    int32_t *signed_dist; /* the same memory for the signed narrow path; SSSP_SIGNED_UNREACHED
                             where no path is known */
    int32_t *parent;      /* the vertex whose edge last lowered dist (read only where dist is) */
    int32_t *queue;       /* Bellman-Ford: this round's frontier and the next one's, V each */
    uint8_t *queued;      /* Bellman-Ford: whether a vertex is in the next frontier */
    radix_heap heap;      /* Dijkstra */
    radix_heap32 narrow_heap;  /* Dijkstra's narrow path */
    bucket_queue narrow_queue; /* the same for small weights (span > 0: sssp_scratch_narrow) */
} sssp_scratch;

#define SSSP_UNREACHED INT64_MAX
/* Above every reachable narrow distance (< INT32_MAX) and every sum of one and a weight. */
#define SSSP_NARROW_UNREACHED UINT32_MAX
/* Above every distance the signed narrow path stores (a simple path's length at most, below
 * APSP_INF). */
#define SSSP_SIGNED_UNREACHED INT32_MAX
/* The narrow path takes Dial's bucket queue (bucket_queue.h) for weights below this, the 32-bit
 * radix heap above: a pop reads at most SSSP_BUCKET_SPAN / 64 words of its bitmap. */
#define SSSP_BUCKET_SPAN 4096

apsp_status sssp_scratch_init(sssp_scratch *s, size_t vertices, apsp_error *error);
/* The bytes sssp_scratch_init takes for `vertices` (the queues grow beyond it as they need). */
uint64_t sssp_scratch_bytes(size_t vertices);
/* s->narrow's offsets of the first arc of each vertex (and of the end) for g, before the narrow
 * path's searches (the arcs' indices are g's edges', below 2^32: sssp_narrow_arcs), and the
 * bucket queue's max_weight + 1 buckets when max_weight < SSSP_BUCKET_SPAN. Returns 0, or 1
 * without memory for the queue. */
int sssp_scratch_narrow(sssp_scratch *s, const adjacency *g, int64_t max_weight);
void sssp_scratch_free(sssp_scratch *s); /* accepts a zeroed one */

/* Dijkstra from `source` over g with `weights` (g->weight, or Johnson's reweighted ones; none
 * negative) into s->dist, and s->parent when `parents`. Returns 0, or 1 when its queue found no
 * memory. */
int dijkstra_distances(const adjacency *g, const int64_t *weights, int32_t source, int parents,
                       sssp_scratch *s);
/* The same over real weights (g->real, or Johnson's reweighted ones, none below 0) into
 * s->real_dist. */
int dijkstra_distances_real(const adjacency *g, const double *weights, int32_t source, int parents,
                            sssp_scratch *s);
/* The same over the narrow path's arcs (sssp_narrow_arcs) into s->narrow, which
 * sssp_scratch_narrow made ready for g. */
int dijkstra_distances_narrow(const adjacency *g, const sssp_arc *arcs, int32_t source, int parents,
                              sssp_scratch *s);

/* Whether searches over non-negative weights whose path bound (base/graph.h:
 * weights_path_bound) is `bound` keep every
 * distance below INT32_MAX: each distance they set is the length of a simple path (a walk that
 * comes back to a vertex is no shorter than what that vertex already holds, so it lowers
 * nothing), at most the bound; a tentative distance, one more weight (itself at most the
 * bound), is then below 2^32 - 2 and SSSP_NARROW_UNREACHED. */
int sssp_narrow_fits(uint64_t bound);
/* The narrow path's arcs for g with `weights` (g->weight or Johnson's reweighted ones, none
 * negative): g->other and the weights packed, when sssp_narrow_fits holds for their
 * weights_path_bound and g has fewer than 2^32 edges; else *arcs = NULL. *largest is the largest
 * weight (the queue's choice), *bound the path bound (for the report, taken on up to `threads`
 * threads). Fails only for want of memory. */
apsp_status sssp_narrow_arcs(const adjacency *g, const int64_t *weights, unsigned threads,
                             sssp_arc **arcs, int64_t *largest, uint64_t *bound, apsp_error *error);

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
/* The same from `source` over the narrow path's arcs (sssp_narrow_arcs: non-negative weights, so
 * no negative cycle) into s->narrow, which sssp_scratch_narrow made ready for g. */
void bellman_ford_distances_narrow(const adjacency *g, const sssp_arc *arcs, int32_t source,
                                   sssp_scratch *s);

/* The same from `source` over the signed narrow path's arcs (sssp_signed_arcs) into
 * s->signed_dist: every weight within int32's rule for V, (V - 1) |w| <= APSP_INF - 1, so every
 * value stored (a walk whose returns to a vertex each lowered it: no longer than the simple path
 * left when its cycles, all negative, are cut out) is below APSP_INF, and a sum at or below
 * -APSP_INF is shorter than any simple path: a negative cycle is reachable, and the search
 * stops there and runs again on int64 (bellman_ford_distances), which names a vertex on it.
 * Every sum, a stored value and one weight, stays within int32. */
int bellman_ford_distances_signed(const adjacency *g, const sssp_signed_arc *arcs, int32_t source,
                                  sssp_scratch *s, int32_t *cycle_vertex);
/* The signed narrow path's arcs for g's integer weights when every one is within int32's rule
 * for g's V (else *arcs = NULL). Fails only for want of memory. */
apsp_status sssp_signed_arcs(const adjacency *g, sssp_signed_arc **arcs, apsp_error *error);

/* s->parent as a predecessor row (SciPy's return_predecessors): APSP_NO_PREDECESSOR for the
 * source and where unreachable. The last edge that lowered a vertex lies on a shortest path
 * and the parents form a tree: Dijkstra's by the order of the pops, Bellman-Ford's because,
 * without a negative cycle, a cycle of parents would have negative weight. */
void sssp_store_pred(const sssp_scratch *s, size_t vertices, int32_t source, sssp_kind kind,
                     int32_t *row);

/* Johnson's potentials h, in the weights' kind; both NULL for the other methods. */
typedef struct sssp_potential {
    const int64_t *integer;
    const double *real;
} sssp_potential;

/* The search's distances (s->dist, s->narrow or s->real_dist by `kind`) as a row of the
 * output, of `dtype`: the type's unreachable marker where unreachable; with potentials (Johnson)
 * the reweighted distance d'(source, t) back to d'(source, t) - h(source) + h(t). Integer distances
 * are exact in int64 and converted once; real ones are rounded once more for float32. */
void sssp_store_row(const sssp_scratch *s, size_t vertices, int32_t source,
                    const sssp_potential *potential, sssp_kind kind, apsp_dtype dtype, void *row);

/* Cell t of a row of `dtype`: an integer distance d, exact in int64 (unreached: the type's
 * marker); sssp_put_real the same for a real one (float32 and float64 rows, +inf unreached). */
void sssp_put_integer(void *row, size_t t, apsp_dtype dtype, int64_t d, int unreached);
void sssp_put_real(void *row, size_t t, apsp_dtype dtype, double d);

#endif
