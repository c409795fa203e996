/* Drivers: what runs a solve through the round-level interface of backend.h. They take devices
 * alone, each carrying its backend's table (backend.h: backend_device); the devices of one solve
 * are of one backend. rows.c shares the rows among the devices of one process (one device is its
 * simplest case); stream.c passes a matrix larger than the device's memory through one device
 * from host memory; small.c solves a graph of a few vertices on the calling thread, batch.c many
 * such graphs over the host's threads. solver.c picks stream.c when drive_streams says so.
 * apsp-mpi's ranks use backend/blocks.h instead (src/mpi). */
#ifndef APSP_DRIVERS_H
#define APSP_DRIVERS_H

#include "base/beside.h"
#include "base/matrix.h"
#include "backend/backend.h"

#include <pthread.h>

/* Solves the matrix in place on opened devices of one backend (one or more), each holding a
 * share of the rows; fills the report's timings and devices. `known` (or NULL: the matrix is
 * checked, matrix_check_cells) is what the check would find in a matrix known to pass it.
 * `idle` (or NULL): rows whose io->prepare runs beside the rounds (beside_start), and only
 * then, since the host's threads check, upload and download around them; for devices off the
 * host, whose rounds leave its cores idle. */
apsp_status drive_rows(backend_device *const *devices, size_t count, apsp_matrix *matrix,
                       const cell_facts *known, const apsp_row_io *idle,
                       const apsp_options *options, apsp_report *report, apsp_error *error);

/* drive_rows with the predecessors derived on the devices (backend.h: backend_paths, which
 * the backend must have) after the store, into paths->pred; paths->seconds is their time. */
typedef struct paths_job {
    const paths_csr *csr;
    int32_t *pred;
    int untight; /* set: some device found distances that are not the graph's */
    double seconds;
} paths_job;
apsp_status drive_rows_paths(backend_device *const *devices, size_t count, apsp_matrix *matrix,
                             paths_job *paths, const apsp_options *options, apsp_report *report,
                             apsp_error *error);

/* Whether the matrix goes to the backend's small solve (backend.h: solve_small): one device
 * of a backend that has one, and a graph within its size; drive_small solves it on the calling
 * thread, its cells checked (or `known`), its negative cycles found as drive_rows finds them,
 * and the report naming the calling thread (small.c). */
int drive_takes_small(backend_device *const *devices, size_t count, const apsp_matrix *matrix);
apsp_status drive_small(const backend_device *device, apsp_matrix *matrix, const cell_facts *known,
                        const apsp_options *options, apsp_report *report, apsp_error *error);

/* A batch's graphs (apsp_batch.h) and where each one's cells begin (batch.c). */
typedef struct batch_plan {
    const apsp_batch *batch;
    const uint64_t *offsets; /* graph g's first cell, by the batch's layout */
    const uint64_t *nodes;   /* the number of graph g's first vertex in the batch's edges */
} batch_plan;
/* Graph g's cells as a matrix of no padding (padded = n, stride its row pitch), and its
 * predecessor cells (NULL when none are asked for). */
apsp_matrix batch_view(const batch_plan *plan, size_t g);
int32_t *batch_pred(const batch_plan *plan, size_t g);
/* Graph g's failure `cause` into error, its message prefixed by "graph G: ". Returns its
 * status. */
apsp_status batch_fail(apsp_error *error, const apsp_error *cause, size_t g);
/* Graph g's cells (and with a pitch, the rest of its block; its predecessors' likewise) made
 * from the batch's edges (batch_fill.c); *facts says whether an edge weighs less than 0 and, for
 * the integer types, the largest |weight| of its edges (at least the cells' own). */
apsp_status batch_fill(const batch_plan *plan, size_t g, cell_facts *facts, apsp_error *error);
/* batch_fill's cells into `m` instead (n x n at its stride, the first `rows` rows and columns
 * written), and no predecessors: where a graph is made straight into a device's staging. */
apsp_status batch_fill_to(const batch_plan *plan, size_t g, const apsp_matrix *m, size_t rows,
                          cell_facts *facts, apsp_error *error);
/* The refusal of graph g's edge `bad` (batch_fill.c): outside the graph, or a weight that is
 * not finite. */
apsp_status batch_edge_refused(const batch_plan *plan, size_t g, size_t bad, apsp_error *error);
/* The unreachable marker into graph g's block of a padded batch outside its n x n cells
 * (batch_fill.c): what the fill writes there, for a graph whose cells came from elsewhere. */
void batch_fill_padding(const batch_plan *plan, size_t g);
/* Graph g's edges for a device that makes its cells (batch_edges.c, backend.h: graphs_slot's
 * from_edges): graph-local endpoints into edges[], weights of the type (-0 as +0) into weights
 * (unless the batch's edges have none), with batch_fill's refusals and *facts; *suffice = 0
 * where the facts do not show the cells within apsp_solve's weight rule (the host must then make
 * and check them). */
apsp_status batch_edges_pack(const batch_plan *plan, size_t g, uint16_t *edges, void *weights,
                             cell_facts *facts, int *suffice, apsp_error *error);
/* Whether facts of a graph of n vertices made from edges stand for the cells' check (batch.c):
 * the integer types' weight rule holds for the largest |weight|; for the floating-point types
 * `most_real` (the largest |weight| off the diagonal) within theirs. */
int batch_facts_suffice(size_t n, apsp_dtype dtype, const cell_facts *facts, double most_real);
/* The refusals of a graph's edges (batch_fill.c): its `first` entries decreasing, and its edge
 * `bad` leaving its vertices. Return APSP_ERR_USAGE. */
apsp_status batch_edges_unordered(size_t from, size_t to, apsp_error *error);
/* Each graph's first edge into first[0 .. count] for a batch whose edges come without them
 * (apsp_batch_edges.first NULL: edge_count edges grouped by graph, in order), from the graphs'
 * first vertices `nodes` (count + 1 entries, the batch's total last), on `threads` (0: one per
 * core); APSP_ERR_USAGE naming the first edge whose source lies outside the batch or in a graph
 * before the edge before it's (batch_first.c). */
apsp_status batch_first_edges(const apsp_batch *b, const uint64_t *nodes, size_t edge_count,
                              unsigned threads, size_t *first, apsp_error *error);
apsp_status batch_edge_outside(const batch_plan *plan, size_t g, size_t bad, apsp_error *error);
/* The most vertices of a graph batch_hops solves: its vertex sets are two 64-bit words. */
enum { BATCH_HOPS_MOST = 128 };
/* Whether graph g is one for batch_hops: made from edges that all weigh 1 (the batch's edges
 * without weights), of at most BATCH_HOPS_MOST vertices, no predecessors asked for. */
int batch_hops_fits(const batch_plan *plan, size_t g);
/* Graph g's distances written into its cells (and with a pitch, the rest of its block) by a
 * breadth-first search from each vertex over its edges (batch_hops.c): the Floyd-Warshall's
 * bytes for a graph batch_hops_fits, with batch_fill's refusals. */
apsp_status batch_hops(const batch_plan *plan, size_t g, apsp_error *error);
/* Graph g made from the batch's edges (when it has them), checked as apsp_solver_solve checks a
 * matrix (*facts: its negative weights, its largest |weight|) and its -0 weights made +0: ready
 * for a solve whose bytes are apsp_solver_solve's. */
apsp_status batch_ready(const batch_plan *plan, size_t g, cell_facts *facts, apsp_error *error);
/* batch_ready's part after the fill, on cells `m` (made from edges where `edges`, *facts then
 * the fill's). */
apsp_status batch_ready_cells(apsp_matrix *m, int edges, cell_facts *facts, apsp_error *error);
/* Solves every graph of 1 to the table's small_vertices vertices on the device's host threads
 * (backend.h: run_items), a graph per thread at a time: each checked, solved by the backend's
 * small solve (or fw_tracked for predecessors) and its diagonal read for negative cycles. The
 * other graphs are left as they are. On failure the error of the least graph that failed. */
apsp_status drive_batch(backend_device *device, const batch_plan *plan, apsp_error *error);

/* Solves every graph of at most `most` vertices on the device through its table's graphs
 * (backend.h), many per call: each made ready on the host, packed, solved on the device, unpacked
 * and its diagonal read for negative cycles. The other graphs are left as they are. On failure the
 * error of the first graph that failed; *times: the device's seconds, added up. */
apsp_status drive_batch_device(backend_device *device, const batch_plan *plan, size_t most,
                               graphs_times *times, apsp_error *error);

/* Whether the backend's devices make their rows of `dtype` from an edge list and hand them on
 * (load_graph, store_rows); drive_graph solves a graph checked for `dtype` that way, as
 * drive_rows would solve its matrix (the same geometry, kernels and checks: the bytes are the
 * same), with `idle` (or NULL) beside the rounds; a negative cycle stops it before the row that
 * shows it is handed on. */
int drive_takes_graphs(backend_device *device, apsp_dtype dtype);
apsp_status drive_graph(backend_device *const *devices, size_t count, const apsp_graph *graph,
                        apsp_dtype dtype, apsp_cells_fn rows, void *context,
                        const apsp_idle_work *idle, const apsp_options *options,
                        apsp_report *report, apsp_error *error);

/* Whether a solve of `vertices` vertices of `dtype` can run on the devices (the geometry, the
 * buffer caps, the devices' memory), without a matrix. */
apsp_status drive_check(backend_device *const *devices, size_t count, size_t vertices,
                        apsp_dtype dtype, const apsp_options *options, apsp_error *error);

/* Whether a solve of `vertices` of `dtype` streams: one device, of a backend that can, that
 * cannot hold the matrix (several devices that cannot hold their shares are refused by
 * drive_rows). */
int drive_streams(backend_device *const *devices, size_t count, size_t vertices, apsp_dtype dtype);

/* Solves the matrix in place through one device from host memory; fills the report. */
apsp_status drive_stream(backend_device *device, apsp_matrix *matrix, const apsp_options *options,
                         apsp_report *report, apsp_error *error);

/* Whether a streamed solve of `vertices` vertices can run, without a matrix; *staging gets the
 * pinned host memory it takes beside the matrix. */
apsp_status drive_stream_check(backend_device *device, size_t vertices, apsp_dtype dtype,
                               const apsp_options *options, uint64_t *staging, apsp_error *error);

#endif
