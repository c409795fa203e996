/* The interface every compute backend implements, at the level of the rounds of blocked
 * Floyd-Warshall (docs/design/solve.md, "The round-level interface").
 *
 * A backend lists its devices and opens one as a `backend_device`: the instance that holds what
 * lives across solves (an OpenCL context, queue and compiled program; a pool of threads). A solve
 * then drives the device round by round:
 *
 *     plan(vertices, dtype)   the geometry the device needs: round depth T, units of n and rows
 *     prepare(rows b..e)      check that those rows fit, and make room for them
 *     load()                  take those rows of the padded matrix (all of them for one device)
 *     for r in 0 .. n/T - 1:
 *         close_pivot(r)      only on the owner of the pivot rows r*T .. r*T + T - 1: closes the
 *                             pivot block and updates the pivot rows (phases 1 and 2)
 *         get_row_panel(r) / put_row_panel(r)
 *                             hand the T x n pivot rows out of the owner, into the others
 *         relax(r, rows)      phase 2 on its pivot-column blocks and phase 3, on those of its
 *                             rows (a driver may relax the next round's pivot rows first)
 *     store()                 give the rows back to the matrix
 *     drain(), unload(keep)   wait for the queues, drop the solve's buffers (always, also
 *                             after a failure; every device drains before any unloads); after
 *                             a successful solve (keep) a backend may keep the buffers of its
 *                             rows for a next prepare of the same geometry and rows
 *
 * Drivers (src/drivers/) decide who owns which rows and move the panels; every cell sees its k
 * in the same order whatever the driver, so the results are identical.
 * Calls may only queue work (OpenCL does): wait_round(r) blocks until round r is done, and
 * store() until everything is; a panel handed out carries the backend's event that says when
 * it is there, and put_row_panel and the later rounds wait for it on the device, not on the
 * host. Nothing outside a backend's folder knows how it works.
 *
 * Errors, one rule for both interfaces (this table and blocks.h's block part): an entry that can
 * fail returns an apsp_status, APSP_OK or the failure's, and fills *error with one line that
 * names what failed (base/error.h: fail); an entry that returns void cannot fail (drain, unload,
 * close and summarize also run after a failure). After a failure the caller takes no further
 * step of that solve but still drains and unloads every device. The one deferral: the round
 * steps of the block part return void because every rank must reach every round's collectives,
 * so a failing step keeps its status and error in the engine (the first one), the steps after
 * it do nothing, and the next entry that returns a status (store) returns it: blocks.h. */
#ifndef APSP_BACKEND_H
#define APSP_BACKEND_H

#include "apsp.h"
#include "base/device_list.h"
#include "backend/blocks.h"
#include "backend/adjacency.h"
#include "backend/paths_csr.h"

#include <stdint.h>

/* An opened device. Each backend's own device struct embeds this as its first member, and its
 * open sets `impl` to the backend's table once: a device carries its table, so the drivers and
 * the solver take devices alone and reach the backend through devices[i]->impl. Only the backend
 * reads the rest, through its checked downcast (cpu/backend.c: cpu_of; opencl/device.h:
 * cl_device_of), which asserts that the device is one its own open made. */
typedef struct backend_device {
    const struct apsp_backend_impl *impl;
} backend_device;

/* How a device lays out a solve of `vertices` vertices. Devices that share a solve take the
 * same tile, and n and the rows they own in multiples of every device's units. */
typedef struct solve_geometry {
    size_t vertices;  /* real vertices */
    size_t n;         /* padded size: a multiple of tile, row_unit and col_unit */
    size_t tile;      /* round depth T: pivot rows per round */
    size_t row_unit;  /* the rows a device owns begin and end on multiples of this */
    size_t col_unit;  /* n is a multiple of this */
    apsp_dtype dtype; /* the element type of the matrix: its cells' size */
} solve_geometry;

/* A pivot-row panel on its way from one device to others: where it is in host memory (owned by
 * the sender, reused two rounds later once every receiver has taken it) and the sender's event
 * for its arrival there (NULL: it is there already). */
typedef struct panel_handoff {
    const void *host; /* cells of the solve's element type */
    void *ready;
    backend_device *sender; /* receivers of its backend tell it when they have taken it */
} panel_handoff;

/* What the device ran with, for apsp_report. */
typedef struct device_summary {
    char device[256];
    int tile;
    int threads;        /* CPU threads (0 for OpenCL) */
    int program_builds; /* programs compiled since the last summary */
    int on_host;        /* computes on the host's own cores (the threads, an OpenCL CPU) */
} device_summary;

/* Streaming from host memory (src/drivers/stream.c, docs/design/opencl.md): a device
 * too small for the matrix keeps the pivot panels of a super-round of K pivots and relaxes the
 * rest of the matrix block by block as it passes through, each block up and down once per
 * super-round:
 *
 *     prepare()                  K, the block height, room on the device, pinned staging
 *     pivots(0, 0, K)            no super-round yet: the blocks only gather
 *     rows(block) for every block     the first super-round's K pivot rows gathered
 *     for each super-round s .. s + K' - 1:
 *         pivots(s, K', K'')     send the last super-round's closed pivot rows home; close the
 *                                gathered K' x n pivot rows R under the pivots s .. s + K' - 1
 *         rows(block)            for every block of the other rows: up, its own K' pivot columns
 *                                A copied aside as they came (they need no closing: cl/fw.cl),
 *                                D = min(D, A (x) R), the next super-round's pivot rows
 *                                gathered, down
 *     finish()                   the last pivot rows and every block home; then drain and
 *                                unload as for rows.c
 * Calls may only queue work; a block's rows of the host matrix are read when rows() is called
 * and written before rows() touches them again or finish() returns. */
typedef struct stream_shape {
    size_t pivots;         /* K: pivots per super-round, a multiple of row_unit */
    size_t block_rows;     /* rows per streamed block, a multiple of row_unit */
    uint64_t device_bytes; /* what streaming takes on the device */
    uint64_t pinned_bytes; /* pinned host staging */
} stream_shape;

typedef struct stream_totals {
    uint64_t bytes_up, bytes_down;
} stream_totals;

typedef struct backend_stream {
    /* Whether rows [0, rows) of the geometry fit the device in core (load, not stream). */
    int (*fits)(backend_device *device, const solve_geometry *geometry, size_t rows);
    /* Refused (APSP_ERR_TOO_LARGE) when even one super-round of one tile does not fit. */
    apsp_status (*prepare)(backend_device *device, const solve_geometry *geometry,
                           stream_shape *shape, apsp_error *error);
    apsp_status (*pivots)(backend_device *device, apsp_matrix *matrix, size_t first, size_t count,
                          size_t next_count, apsp_error *error);
    apsp_status (*rows)(backend_device *device, apsp_matrix *matrix, size_t row_begin,
                        size_t row_end, apsp_error *error);
    apsp_status (*finish)(backend_device *device, apsp_matrix *matrix, stream_totals *totals,
                          apsp_error *error);
} backend_stream;

/* The kernels a solve needs: its element type, and whether some distance is negative (the
 * integer kernels then never let the unreachable marker absorb a negative weight and keep every
 * sum above -INF; the floating-point ones need no other form: +inf absorbs every finite sum). */
typedef struct kernel_form {
    apsp_dtype dtype;
    int negative;
    /* Integer types, one device holding the whole matrix: (V - 1) * the largest |weight| when
     * (V + n - 1) times it stays below the type's INF (n: the padded size), else 0. Within that
     * bound a backend may keep the add-min and treat INF as a long edge (cl/fw.cl: the bounded
     * negative form): every path over a missing edge is longer than the bound. */
    int64_t bound;
} kernel_form;

/* A device whose memory is not the host's: the matrix born there from the edge list and handed
 * out as rows, and the host memory its transfers reach fastest. */
typedef struct backend_device_memory {
    /* Whether load_graph makes rows of `dtype` on this device (int32: always). */
    int (*takes_graph)(backend_device *device, apsp_dtype dtype);
    /* Load from an edge list that graph_check_typed accepted for the solve's type (its plan),
     * making the rows on the device: the cells as apsp_graph_to_matrix_typed makes them, float
     * -0 as +0 (as a float solve reads it). */
    apsp_status (*load_graph)(backend_device *device, const apsp_graph *graph, apsp_error *error);
    /* Store by handing the device's real rows of the solve's type, in increasing order, to
     * `rows`. */
    apsp_status (*store_rows)(backend_device *device, apsp_cells_fn rows, void *context,
                              apsp_error *error);
    /* `bytes` of host memory that the device's transfers reach fastest
     * (apsp_solver_matrix_create), 64-byte aligned, into *cells, freed by (*owner)->release,
     * which works also after the device is closed. *cells = NULL (and APSP_OK) where the device
     * has none of that size: the heap's then. */
    apsp_status (*host_memory)(backend_device *device, size_t bytes, void **cells,
                               struct apsp_matrix_owner **owner, apsp_error *error);
} backend_device_memory;

/* The predecessors derived where the distances are (else the host derives them). */
typedef struct backend_paths {
    /* What derive needs that lasts (its program), made before the load so that the set-up time
     * counts it, not the derivation's. */
    apsp_status (*prepare)(backend_device *device, apsp_error *error);
    /* After store, while the rows are still on the device, the predecessors of the device's real
     * rows into their rows of pred (V x V int32, row-major), the first tight in-edge of each
     * vertex in the CSR's order. *untight becomes nonzero when some vertex at a finite distance
     * had no tight in-edge (distances that are not the graph's: the caller derives on the host,
     * which says what is wrong). */
    apsp_status (*derive)(backend_device *device, const paths_csr *csr, int32_t *pred, int *untight,
                          apsp_error *error);
} backend_paths;

/* Distances from chosen sources on the device (src/sssp/, docs/design/sources.md "Chosen
 * sources"): Bellman-Ford for a batch of sources at a time, distances of the rows' type (integers
 * exact, floats summed in that type), and the predecessors when asked for.
 *
 *     prepare(graph, S, run) the program, the graph's CSR on the device, room for a batch;
 *                            *batch: the sources a batch takes (by the device's memory)
 *     for each batch:
 *         solve(sources)     the batch's distances (and predecessors), on the device
 *         store_rows(rows)   handed to `rows` (and `pred`) as the rows of the batch, in order
 *     release(times)         the buffers freed, the times of the whole run
 */
typedef struct sources_device_times {
    double upload;   /* the CSR and each batch's start */
    double rounds;   /* the rounds and sweeps (wall time: they only queue between reads) */
    double kernels;  /* the device's own time of the round and sweep kernels; 0: not profiled */
    double download; /* the rows down: the waits for them, the caller's work beside left out */
    double handed;   /* the caller's rows functions (its writing), while the next rows come */
    size_t batches, round_count, sweeps, pairs; /* pairs: frontier entries relaxed */
} sources_device_times;

/* What a run keeps: the distances' type (the weights are sent in it: integers within its rule,
 * real ones not negative) and whether it picks predecessors (then every weight is > 0). */
typedef struct sources_run {
    apsp_dtype dtype;
    int pred;
} sources_run;

/* What auto's cost model (src/sssp/method.c) expects of a run on this device, by its parts:
 * seconds = fixed + CSR bytes / upload + S E / relax (x wide for 64-bit cells) + S row bytes /
 * download, where row bytes are the distances' and the predecessors' of a source. */
typedef struct sources_device_costs {
    double fixed_seconds;             /* the program (from the cache), the round launches */
    double upload_bytes_per_second;   /* the CSR up */
    double source_edges_per_second;   /* the S x E of a run, re-relaxations included, int32 */
    double wide_share;                /* of that rate with 8-byte cells (int64, float64) */
    double download_bytes_per_second; /* the rows (and predecessors) down */
} sources_device_costs;

typedef struct backend_sources {
    /* The cost model's figures for this device (above). */
    void (*costs)(backend_device *device, sources_device_costs *costs);
    /* Why this device cannot keep distances of `dtype` (a short clause), or NULL: it can. */
    const char *(*declines)(backend_device *device, apsp_dtype dtype);
    /* For `sources` sources over `graph` (E < 2^32; the weights as `run` says): refused with
     * APSP_ERR_TOO_LARGE where even one source does not fit. */
    apsp_status (*prepare)(backend_device *device, const adjacency *graph, size_t sources,
                           sources_run run, size_t *batch, apsp_error *error);
    /* The distances from `count` (at most *batch) sources. *give_up becomes nonzero when a
     * negative cycle may be reachable from one of them (a pair still lowered after V rounds, or a
     * sum shorter than any simple path), or when a reached vertex has no predecessor the device
     * can pick (a float sum that absorbed an edge's weight): the rows are then not to be handed
     * on, and the caller's host method runs these sources (and says for certain). */
    apsp_status (*solve)(backend_device *device, const int32_t *sources, size_t count, int *give_up,
                         apsp_error *error);
    /* The batch's predecessor rows (when the run has them) to pred(pred_context, first + r, ...)
     * and then its rows of distances, the type's unreachable marker where unreachable, to
     * rows(context, first + r, ...), a few rows at a time. */
    apsp_status (*store_rows)(backend_device *device, size_t first, apsp_cells_fn rows,
                              void *context, apsp_rows_fn pred, void *pred_context,
                              apsp_error *error);
    void (*release)(backend_device *device, sources_device_times *times); /* times: or NULL */
} backend_sources;

/* A batch's small graphs solved on the device, many at once (drivers/batch_device.c), each by
 * one work-group in local memory, a chunk of graphs at a time through GRAPHS_SLOTS staging slots
 * in host memory that the device moves at the bus's speed (pinned): while the device solves one
 * chunk and moves others, the host packs the next into a free slot and unpacks a finished one.
 * A slot's chunk: `count` graphs, graph k's n x n cells row-major from cell index[4k] of `cells`
 * (cells_count cells of the dtype in all), index[4k + 1] = n, | GRAPHS_NEGATIVE where it is
 * relaxed in the negative form; each checked and ready as apsp_solver_solve would solve it, and
 * solved in place with the bytes the rounds give it. `most`: the chunk's largest n. A chunk
 * `from_edges` carries no cells up: graph k's are made on the device from its edges
 * [index[4k + 2], + index[4k + 3]) of `edges` (source | target << 8, graph-local; self-loops
 * ignored, the least weight kept, both ways where `undirected`) and `weights` (of the dtype, -0
 * as +0; NULL where every edge weighs 1): the marker, a 0 diagonal, the edges. */
enum { GRAPHS_SLOTS = 3 };
#define GRAPHS_NEGATIVE 0x80000000u

typedef struct graphs_slot {
    void *cells;
    uint32_t *index;
    uint16_t *edges;
    void *weights;
    size_t count, cells_count, most, edges_count;
    int from_edges, undirected, unweighted;
} graphs_slot;

/* The slots, each with room for `bytes` of cells, `graphs` graphs and `edges` edges (weights of
 * up to 8 bytes). */
typedef struct graphs_stage {
    graphs_slot slot[GRAPHS_SLOTS];
    size_t bytes, graphs, edges;
} graphs_stage;

/* Seconds of the calls, added up: the program (built or from the cache), the host's waits for
 * a chunk to come back, and (with a profile: apsp_options.profile) the device's time on the
 * chunks' uploads (each one's last write), kernels and downloads. */
typedef struct graphs_times {
    double setup, wait, upload, kernels, download;
} graphs_times;

typedef struct backend_graphs {
    /* The most vertices of a graph of `dtype` this way; 0: none (the blocked solver's path). */
    size_t (*most_vertices)(backend_device *device, apsp_dtype dtype);
    /* The slots for chunks of `dtype` of at most `bytes` of cells and `graphs` graphs each (the
     * backend may give fewer bytes, under apsp_options.device_memory, never fewer than a graph
     * of most_vertices takes), kept with the device for its next batch; the program ready. */
    apsp_status (*stage)(backend_device *device, apsp_dtype dtype, size_t bytes, size_t graphs,
                         graphs_stage **out, graphs_times *times, apsp_error *error);
    /* Slot s's chunk up, solved and down, queued without waiting; the slot's memory is the
     * device's until finish. */
    apsp_status (*start)(backend_device *device, size_t s, apsp_dtype dtype, apsp_error *error);
    /* Until slot s's chunk is back (a slot never started: at once). */
    apsp_status (*finish)(backend_device *device, size_t s, graphs_times *times, apsp_error *error);
} backend_graphs;

typedef struct apsp_backend_impl {
    apsp_backend_kind kind; /* its name is apsp_backend_name(kind) */
    /* Appends this backend's devices to the list. Finding none is not an error. */
    apsp_status (*list)(device_list *list, apsp_error *error);
    /* Opens `count` listed devices of this backend together (devices that share a solve may
     * need to share a context) with the options, which must outlive them; out[i] for
     * infos[i]. On failure none is left open. */
    apsp_status (*open)(const apsp_device_info *const *infos, size_t count,
                        const apsp_options *options, backend_device **out, apsp_error *error);
    void (*close)(backend_device *device); /* accepts NULL */

    /* For a matrix of `dtype`: refused (APSP_ERR_USAGE) for a type the device cannot run. */
    apsp_status (*plan)(backend_device *device, size_t vertices, apsp_dtype dtype,
                        solve_geometry *geometry, apsp_error *error);
    /* Relaxations per second the device can be expected to do, to share rows by. */
    double (*speed)(backend_device *device);
    /* Rows [row_begin, row_end) of the geometry's padded matrix: refused when they cannot fit
     * (before the matrix is read), else room made for them. */
    apsp_status (*prepare)(backend_device *device, const solve_geometry *geometry, size_t row_begin,
                           size_t row_end, apsp_error *error);
    /* Those rows from `matrix` (rows and columns at or past matrix->n are padding, which the
     * device makes itself). */
    apsp_status (*load)(backend_device *device, apsp_matrix *matrix, apsp_error *error);
    /* The kernels' form for the solve about to load or stream. Called by the drivers once the
     * matrix is checked, before load (or the first streamed block); refused (APSP_ERR_USAGE)
     * for an element type the backend has no kernels for. */
    apsp_status (*set_form)(backend_device *device, const kernel_form *form, apsp_error *error);
    apsp_status (*close_pivot)(backend_device *device, size_t round, apsp_error *error);
    /* Round r's pivot rows, T x n row-major, out of the owner (after close_pivot: the handoff
     * stays valid until round r + 2 is handed out) and into another device. */
    apsp_status (*get_row_panel)(backend_device *device, size_t round, panel_handoff *handoff,
                                 apsp_error *error);
    apsp_status (*put_row_panel)(backend_device *device, size_t round, const panel_handoff *handoff,
                                 apsp_error *error);
    /* Round r on the device's rows within [row_begin, row_end) (multiples of row_unit). */
    apsp_status (*relax)(backend_device *device, size_t round, size_t row_begin, size_t row_end,
                         apsp_error *error);
    apsp_status (*wait_round)(backend_device *device, size_t round, apsp_error *error);
    apsp_status (*store)(backend_device *device, apsp_matrix *matrix, apsp_error *error);
    /* Waits for everything queued, also after a failure: a device may be reading another's
     * pinned panel, so every device drains before any unloads. */
    void (*drain)(backend_device *device);
    /* keep: the solve (or check) succeeded and the device's rows may stay where they are for a
     * next prepare of the same geometry and rows, which then reuses them; else, or when the next
     * prepare differs or the device closes, they are released. */
    void (*unload)(backend_device *device, int keep);
    void (*summarize)(backend_device *device, device_summary *summary);

    /* The optional parts, each NULL where the backend has none (the pthread backend, whose
     * memory is the host's, has none of the first three, nor `sources`). The drivers and the
     * solver test the pointer once and then call every entry of the part. */
    const backend_device_memory *device_memory;
    const backend_paths *paths;
    const backend_stream *stream;
    /* The block-level engine apsp-mpi's ranks run (backend/blocks.h). */
    const backend_blocks *blocks;
    /* Seconds a solve of `vertices` would take with the options, before any device is open
     * (auto mode's choice for a small graph: solver.c); NULL where the backend cannot say. */
    double (*estimated_seconds)(const apsp_options *options, size_t vertices);
    /* A graph of at most small_vertices solved in place on the calling thread, over its n x n
     * cells alone (no padding read, no threads woken), with the result the rounds would give, in
     * the negative form when `negative`; `most`, the largest |weight| of an integer graph (the
     * check's cell_facts), lets it compute in narrower lanes where every distance fits them.
     * NULL where the backend has none (solver/solver.c). */
    apsp_status (*solve_small)(apsp_matrix *matrix, int negative, uint64_t most, apsp_error *error);
    size_t small_vertices;
    /* Runs task(context, item, thread) on every item in [0, count) over the device's host
     * threads (thread < host_threads), each item to whichever thread asks next, and returns when
     * all are done: a batch's graphs, a graph per thread (drivers/batch.c). NULL where the
     * backend computes elsewhere. */
    void (*run_items)(backend_device *device,
                      void (*task)(void *context, size_t item, unsigned thread), void *context,
                      size_t count);
    unsigned (*host_threads)(backend_device *device);
    /* Distances from chosen sources on the device (src/sssp/, above). */
    const backend_sources *sources;
    /* A batch's small graphs on the device, many per launch (above); NULL where the backend
     * has none (drivers/batch.c then spreads them over run_items, or they go one at a time). */
    const backend_graphs *graphs;
} apsp_backend_impl;

extern const apsp_backend_impl apsp_backend_cpu;
#ifdef APSP_HAVE_OPENCL
extern const apsp_backend_impl apsp_backend_opencl;
#endif

#endif
