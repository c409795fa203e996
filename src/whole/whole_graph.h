/* An edge list solved for float32 or float64 rows by the int32 kernels, decided from its E
 * edges (apsp_solver_solve_graph_typed). whole_floats.c decides the same for a matrix by reading
 * its V x V cells; a graph read from a file has its weights at hand, so no float matrix is made,
 * scanned or converted: the int32 rows are made from the edges as an int32 graph's are, and each
 * band of rows becomes float cells on its way to the caller. */
#ifndef APSP_WHOLE_GRAPH_H
#define APSP_WHOLE_GRAPH_H

#include "apsp.h"

/* The int32 solve of an edge list (apsp_solver_solve_graph). */
typedef apsp_status (*whole_graph_solve_fn)(apsp_solver *solver, const apsp_graph *graph,
                                            apsp_rows_fn rows, void *context, apsp_report *report,
                                            apsp_error *error);

/* Solves `graph` for rows of `dtype` (float32 or float64) handed to `cells`, by `solve` on the
 * int32 kernels, when every weight is whole and 2 (V - 1) max|w| stays within the float type's
 * exact integers and (V - 1) max|w| within int32's rule (whole_floats.h: the answer is then the
 * float path's, bit for bit). The weights are read once, from the edges (self-loops too, though
 * they are ignored: a bound over more edges is only larger). A graph with a negative weight is
 * left to the matrix route (whole_floats.c): past a negative cycle float sums round, so the float
 * path must give the answer, and rows handed on before the cycle is seen cannot be taken back.
 * Returns with *taken = 0 and nothing solved when the route does not apply. Fills
 * report->kernels, kernels_why and whole_seconds. */
apsp_status whole_graph_solve(apsp_solver *solver, const apsp_graph *graph, apsp_dtype dtype,
                              apsp_cells_fn cells, void *context, whole_graph_solve_fn solve,
                              unsigned threads, apsp_report *report, int *taken, apsp_error *error);

#endif
