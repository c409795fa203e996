/* apsp: shortest paths, part of the public API (include/apsp.h includes this header, so a program
 * includes either): the predecessors of every vertex on a shortest path from each source, derived
 * from solved distances or with a solve, and one path read off them. */
/* apsp.h first, outside the guard: it includes this header at its end, which must then find
 * the guard still open whichever of the headers a program includes first. */
#include "apsp.h"
#ifndef APSP_PATHS_H
#define APSP_PATHS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Shortest paths (src/paths/). The predecessor of vertex j on a shortest path from source i, as
 * SciPy's return_predecessors: APSP_NO_PREDECESSOR for the source itself and for unreachable
 * vertices. */
#define APSP_NO_PREDECESSOR (-9999)
/* Derives the predecessors of sources [first, first + count) after the solve, from the solved
 * distances and the graph they came from (as transformed: --undirected, --unweighted), into
 * pred: count rows of V int32, row-major (row r is source first + r). An edge (k, j) is tight
 * for source i when d(i,k) + w(k,j) = d(i,j); the predecessors follow tight edges and form a
 * valid shortest-path tree also with zero-weight cycles and repeated edges (the least weight
 * counts); self-loops are ignored. The distances may be of any element type (an integer graph
 * for the integer types; real weights only for float32 and float64, whose edges are tight within
 * 4 V epsilon of the type, relative: apsp_predecessors_csr takes a tolerance of its own). On
 * `threads` host threads (0: one per core), O(V E) work: int32 distances and non-negative weights
 * by vectors of 16 sources over the in-edges, anything else (negative weights without a negative
 * cycle, the other types) by a search per source. Refuses (APSP_ERR_USAGE) a graph and matrix of
 * different V,
 * edges outside [0, V), a diagonal that is not 0, and distances the graph contradicts: a vertex
 * at a finite distance that no path of that length reaches, or (checked against every edge when
 * the weights are non-negative) an edge that makes a path shorter. */
APSP_EXPORT apsp_status apsp_predecessors(const apsp_graph *graph, const apsp_matrix *distances,
                                          size_t first, size_t count, unsigned threads,
                                          int32_t *pred, apsp_error *error);
/* apsp_predecessors for distances of any element type, with the graph in compressed sparse rows
 * of the same element type (the form SciPy's csgraph holds): the out-edges of vertex k are
 * indices[indptr[k] .. indptr[k + 1]) with weights in the same places of `weights` (int32_t,
 * int64_t, float or double, as distances->dtype; repeated edges allowed, the least counts;
 * self-loops ignored). An edge (k, j) is tight for source i when d(i,k) + w(k,j) = d(i,j):
 * exactly for the integer types; for the floating-point ones, whose sums the solve associated
 * in its own order, within tolerance * max(1, |d(i,j)|). Each source's predecessors come from a
 * search over tight edges, so they form a tree even with zero-weight cycles. Sources
 * [first, first + count) into pred (count rows of V int32), on `threads` threads (0: one per
 * core). Refuses (APSP_ERR_USAGE) what apsp_predecessors refuses, and a vertex at a finite
 * distance that no tight edge reaches. */
APSP_EXPORT apsp_status apsp_predecessors_csr(const apsp_matrix *distances, const int64_t *indptr,
                                              const int32_t *indices, const void *weights,
                                              double tolerance, size_t first, size_t count,
                                              unsigned threads, int32_t *pred, apsp_error *error);
/* Solves the matrix (as apsp_solver_solve) and derives the predecessors of every source into
 * pred (V x V int32, row-major), from `graph`, the edge list the matrix was made of
 * (apsp_graph_to_matrix). When every weight is 0 <= w < APSP_INF and the zero-weight edges (no
 * self-loops) form no cycle, the predecessor of j is the least k whose edge (k, j) is tight, on
 * every backend: on OpenCL devices it is derived where the distances are, before they are
 * dropped; the pthread backend and a streamed solve derive it with apsp_predecessors, which
 * takes the same edge. Otherwise (negative weights, zero-weight cycles) apsp_predecessors
 * derives it on the host threads after the solve. Refuses (APSP_ERR_USAGE) what apsp_solver_solve
 * and apsp_predecessors refuse. The report says where and how long (paths_seconds). */
APSP_EXPORT apsp_status apsp_solver_solve_paths(apsp_solver *solver, apsp_matrix *matrix,
                                                const apsp_graph *graph, int32_t *pred,
                                                apsp_report *report, apsp_error *error);
/* One shortest path read off the predecessor row of `source`: its vertices from source to
 * target into path (room for `vertices`), their number in *length; 0 when the target is
 * unreachable, 1 when it is the source. Refuses (APSP_ERR_USAGE) a vertex outside [0, V) and a
 * row whose predecessors do not lead back to the source. */
APSP_EXPORT apsp_status apsp_path(const int32_t *pred_row, size_t vertices, size_t source,
                                  size_t target, int32_t *path, size_t *length, apsp_error *error);

#ifdef __cplusplus
}
#endif

#endif
