/* An edge list solved for float32 or float64 rows by the int32 kernels, decided from its E
 * edges (apsp_solver_solve_graph_typed). whole_floats.c decides the same for a matrix by reading
 * its V x V cells; a graph read from a file has its weights at hand, so no float matrix is made,
 * scanned or converted: the int32 rows are made from the edges as an int32 graph's are, and each
 * band of rows becomes float cells on its way to the caller. */
#ifndef APSP_WHOLE_GRAPH_H
#define APSP_WHOLE_GRAPH_H

#include "apsp.h"

#include "whole/whole_scan.h"

/* How the solver solves a graph as a matrix of `dtype`, its rows handed to `cells`: made on the
 * host and solved by apsp_solver_solve (float_path 0: a float matrix's cells scanned by
 * whole_floats.c), or by the float kernels alone (float_path 1), the matrix made from the edges
 * on the devices that can (else on the host). */
typedef apsp_status (*whole_graph_matrix_fn)(apsp_solver *solver, const apsp_graph *graph,
                                             apsp_dtype dtype, int float_path, apsp_cells_fn cells,
                                             void *context, apsp_report *report, apsp_error *error);

/* How the solver solves an int32 graph for int32 rows (apsp_solver_solve_graph's form): handed
 * in, so that this folder, below the solver, calls nothing of it by name. */
typedef apsp_status (*whole_graph_int32_fn)(apsp_solver *solver, const apsp_graph *graph,
                                            apsp_rows_fn rows, void *context, apsp_report *report,
                                            apsp_error *error);

/* What whole_graph_solve needs of the solver. */
typedef struct whole_graph_job {
    int float_kernels; /* apsp_options.float_kernels: the float path, always */
    unsigned threads;  /* for the conversion of large bands of rows; 0: one per core */
    whole_graph_matrix_fn on_matrix;
    whole_graph_int32_fn on_edges;
    /* NULL, or the caller's own conversion of the int32 rows, with the cells' context
     * (apsp_idle_work.int32_cells): then no band is converted here */
    apsp_rows_fn int32_cells;
} whole_graph_job;

/* The kernels for rows of `dtype` (float32 or float64) by whole_floats.h's rule, decided from
 * the edges: the float path at the first weight that is not whole (NaN and inf included), else
 * the bound over max|w| of the edges (self-loops too, though they are ignored: a bound over more
 * edges is only larger, and repeated edges only make it larger than the cells'). *negative says
 * whether an edge that is no self-loop has a negative weight. plan->why ends with the edges'
 * count. */
void whole_graph_plan(const apsp_graph *graph, apsp_dtype dtype, whole_plan *plan, int *negative);

/* Solves `graph` (checked for `dtype`, float32 or float64) for rows of `dtype` handed to `cells`,
 * by the route its edges decide: the int32 kernels straight from the edges
 * (apsp_solver_solve_graph), each band of rows converted on its way, where the plan is int32 and
 * no weight is negative (the answer is then the float path's, bit for bit: whole_floats.h); the
 * float kernels on a matrix of `dtype` (job->on_matrix's float path, made on the devices where
 * they can), no cell scanned, where the plan is the float path (a weight that is not whole, or
 * float_kernels), negative weights or not; else (whole weights, some negative: past a negative
 * cycle float sums round and the float path must answer, and rows handed on before the cycle is
 * seen could not be taken back; int64's range) the host matrix route, whose scan decides. Fills
 * report->kernels, kernels_why and whole_seconds (the edge scan) where the edges decided. */
apsp_status whole_graph_solve(apsp_solver *solver, const apsp_graph *graph, apsp_dtype dtype,
                              apsp_cells_fn cells, void *context, const whole_graph_job *job,
                              apsp_report *report, apsp_error *error);

#endif
