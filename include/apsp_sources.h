/* apsp: distances from chosen sources, part of the public API (include/apsp.h includes this
 * header, so a program includes either): Dijkstra, Johnson and Bellman-Ford over the edge list,
 * or Floyd-Warshall on the solver's devices, S x V rows without a V x V matrix. */
/* apsp.h first, outside the guard: it includes this header at its end, which must then find
 * the guard still open whichever of the headers a program includes first. */
#include "apsp.h"
#ifndef APSP_SOURCES_H
#define APSP_SOURCES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Distances from chosen sources (src/sssp/; docs/design/sources.md, "Chosen sources"), as
 * SciPy's shortest_path(method=..., indices=...). */
typedef enum apsp_method {
    APSP_METHOD_AUTO = 0,     /* by the cost model: see apsp_solver_solve_sources */
    APSP_METHOD_FW,           /* blocked Floyd-Warshall on the solver's devices (SciPy's 'FW') */
    APSP_METHOD_DIJKSTRA,     /* per source, non-negative weights only ('D') */
    APSP_METHOD_JOHNSON,      /* Bellman-Ford potentials, then Dijkstra ('J') */
    APSP_METHOD_BELLMAN_FORD, /* per source ('BF') */
} apsp_method;

/* Parses a name apsp_method_name gives. Returns -1 for anything else. */
APSP_EXPORT int apsp_method_parse(const char *text, apsp_method *method);
APSP_EXPORT const char *apsp_method_name(apsp_method method);

/* The distances from sources[0 .. count) (NULL: every vertex in order, count ignored) to every
 * vertex, handed to `rows` in batches: row r is sources[r]'s, V int32 values, APSP_INF where
 * there is no path, exactly the values Floyd-Warshall gives. Dijkstra, Johnson and Bellman-Ford
 * run on the host threads (apsp_options.threads) over the graph in compressed sparse rows, with
 * O(batch x V + E) memory (a batch is at most 64 MiB of rows), Bellman-Ford and Johnson on the
 * solver's OpenCL device where it can run them (docs/design/sources.md, apsp.h's
 * sources_device_only and apsp_report.device_declined); Floyd-Warshall runs on the solver's
 * devices (V^2 memory). APSP_METHOD_AUTO: Floyd-Warshall for a dense graph (E >= V^2/8
 * after repeated edges and self-loops are dropped) with every vertex a source, or where its V^3
 * relaxations cost less than the estimate of Dijkstra (Johnson with a negative weight); the
 * report's `method` gives the numbers. The graph is checked as apsp_graph_to_matrix checks it
 * (integer weights within int32's rule); a source outside [0, V) and Dijkstra asked for on a
 * negative weight are refused (APSP_ERR_USAGE). A negative cycle is APSP_ERR_NEGATIVE_CYCLE,
 * naming a vertex on it: anywhere in the graph for Johnson and Floyd-Warshall, reachable from a
 * source for Bellman-Ford (as SciPy); rows handed on before it was found stay handed on. The
 * options' progress function counts sources, and its cancel function is asked between
 * batches. */
APSP_EXPORT apsp_status apsp_solver_solve_sources(apsp_solver *solver, const apsp_graph *graph,
                                                  const int32_t *sources, size_t count,
                                                  apsp_method method, apsp_rows_fn rows,
                                                  void *context, apsp_report *report,
                                                  apsp_error *error);

/* apsp_solver_solve_sources with the predecessors too: `pred` (NULL: none) receives the same
 * sources' predecessor rows, each batch just before its distances, as int32 rows of V
 * (APSP_NO_PREDECESSOR for the source and unreachable vertices; row r is sources[r]'s, a
 * shortest-path tree, which may differ from SciPy's where several shortest paths exist). The
 * sparse methods take them from their own search (the last edge that lowered each vertex);
 * Floyd-Warshall from apsp_predecessors over the whole matrix (V^2 more memory). */
APSP_EXPORT apsp_status apsp_solver_solve_sources_paths(
    apsp_solver *solver, const apsp_graph *graph, const int32_t *sources, size_t count,
    apsp_method method, apsp_rows_fn rows, void *context, apsp_rows_fn pred, void *pred_context,
    apsp_report *report, apsp_error *error);

/* apsp_solver_solve_sources_paths for distances of any type: the rows are `dtype` cells
 * (APSP_INF, APSP_INF64 or +inf where there is no path) and the graph is checked by that type's
 * rule (apsp_graph_to_matrix_typed's). Integer weights are summed exactly in int64 (the int
 * types' distances equal Floyd-Warshall's byte for byte); real weights (float32, float64) in
 * double and rounded once to float32 for that type, so they are within a few ulps of SciPy's
 * (Johnson's reweighting rounds too: on_threads.c states the bound), not bit for bit Floyd-
 * Warshall's blocked order. `pred` as there (NULL: none). */
APSP_EXPORT apsp_status apsp_solver_solve_sources_typed(
    apsp_solver *solver, const apsp_graph *graph, const int32_t *sources, size_t count,
    apsp_method method, apsp_dtype dtype, apsp_cells_fn rows, void *context, apsp_rows_fn pred,
    void *pred_context, apsp_report *report, apsp_error *error);

/* apsp_solver_solve_sources_typed with `idle` (apsp.h's apsp_idle_work; NULL: none) run beside
 * the rounds of the device's method (bellman-ford or johnson on an OpenCL device, where the host's
 * cores are idle or apsp_options.overlap asks for it): from the upload until the first batch's
 * rounds end, and returned before its rows are handed on. The place to prepare the outputs
 * (apsp_row_writer_prepare); rows still come in order (rows_in_any_order is not used). Its
 * seconds within the rounds are apsp_report.overlapped_seconds. */
APSP_EXPORT apsp_status apsp_solver_solve_sources_idle(
    apsp_solver *solver, const apsp_graph *graph, const int32_t *sources, size_t count,
    apsp_method method, apsp_dtype dtype, apsp_cells_fn rows, void *context, apsp_rows_fn pred,
    void *pred_context, const apsp_idle_work *idle, apsp_report *report, apsp_error *error);

/* The narrowest type of apsp_solver_solve_sources_typed's rows for this graph: apsp_graph_dtype's,
 * but int32 also where no weight is negative and the sum of the V - 1 largest weights (self-loops
 * left out) is below APSP_INF: no simple path, so no distance, can reach the marker, though
 * (V - 1) max|w| may (a few long arcs among short edges). Such a graph's int32 rows are accepted
 * by the sources' solve (its methods other than Floyd-Warshall, which keeps the per-weight rule)
 * and by its device method. */
APSP_EXPORT apsp_dtype apsp_graph_sources_dtype(const apsp_graph *graph);

#ifdef __cplusplus
}
#endif

#endif
