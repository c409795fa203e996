/* The OpenCL backend's instance: one opened device. What lives across solves (the context, the
 * queue, the compiled program) and what one solve holds (the layout of its rows on the device)
 * sit here; each file of src/opencl/ works on one part of it:
 *   discovery.c  finding and listing devices          params.c   the kernel parameters
 *   program.c    the program and its kernels          layout.c   padding, bands, transfers
 *   rounds.c     enqueueing the phases of a round     backend.c  the interface of backend.h
 *   panels.c     panels between devices               stream.c   streaming from host memory
 *
 * The layout: the padded matrix (n, a multiple of the round depth TILE and of the phase-3 block
 * edges) lives as row bands of whole tile rows, one buffer per band, so that a matrix larger than
 * the driver's biggest single allocation still fits; a device holds the bands of its own rows.
 * Besides the bands there are two pairs of panel buffers, TILE x n each; round r uses pair r % 2:
 *     row panel: the TILE pivot rows;
 *     col panel: the TILE pivot columns, transposed (k-major like the row panel), for own rows.
 * cl/fw.cl says what each kernel does with them. */
#ifndef APSP_OPENCL_DEVICE_H
#define APSP_OPENCL_DEVICE_H

#include "backend/backend.h"
#include "opencl/cl_util.h"
#include "opencl/params.h"

#include <assert.h>

typedef struct cl_device cl_device;

/* The checked downcast of the table's entries: a device this backend's open made (NULL stays
 * NULL, for close). */
static inline cl_device *cl_device_of(backend_device *device) {
    assert(!device || device->impl == &apsp_backend_opencl);
    return (cl_device *)device;
}

/* The steps of a round, for options->profile. */
enum { STEP_ROW_PANEL, STEP_COL_PANEL, STEP_PHASE1, STEP_PHASE2, STEP_PHASE3, STEP_COUNT };

/* The most devices one device hands a panel to. */
enum { MAX_RECEIVERS = 64 };

/* Rounds whose end events are kept for wait_round. */
enum { ROUND_EVENTS = 8 };

typedef struct cl_kernels {
    cl_program program;
    cl_kernel phase1, phase2, phase3, pad, transpose, stream, scatter, unreachable;
    char options[1024]; /* the build options of the program; "" before the first build */
} cl_kernels;

/* Programs built before the current one, kept so that a solver alternating element types or
 * forms between solves does not rebuild (each form is one set of build options). */
enum { KEPT_PROGRAMS = 3 };
/* The element types batch.c keeps a program for: apsp_dtype's values are below this. */
enum { BATCH_DTYPES = 4 };

/* program_cache.c: the "in use" markers of the cache files a device loaded (the current program,
 * the kept ones, paths.cl's), and the room for one's path. */
enum { CACHE_MARKERS = KEPT_PROGRAMS + 2, CACHE_PATH_BYTES = 4200 };

typedef struct cl_band {
    cl_mem buffer;
    size_t row0; /* first row in the whole matrix */
    size_t rows;
} cl_band;

typedef struct cl_layout {
    solve_geometry geometry;
    size_t row_begin, row_end; /* the rows this device holds */
    cl_band *bands;
    size_t band_count; /* entries of `bands` that exist, for layout_release */
    cl_mem row_panel[2], col_panel[2];
    /* Every band and panel of an in-core solve made (layout_prepare): kept after a successful
     * solve for the next one of the same geometry and rows (backend.h: unload). */
    int complete;
} cl_layout;

/* Several devices: the order between the two queues, by events per panel pair (r % 2), and the
 * pinned host memory the panels this device hands out pass through. */
typedef struct cl_panel_sync {
    cl_event copied[2];  /* the last transfer of row panel k (out to host, or in) */
    cl_event relaxed[2]; /* the last phase 3 that read row panel k */
    cl_event closed;     /* the last phase 2: the panel it made is final */
    cl_mem staging[2];   /* pinned (CL_MEM_ALLOC_HOST_PTR), mapped at staging_host */
    void *staging_host[2];
    /* The receivers' copies out of staging k: the next panel into it waits for them (a
     * receiver may run rounds behind). `foreign` ones belong to another context. */
    cl_event taken[2][MAX_RECEIVERS];
    int foreign[2][MAX_RECEIVERS];
    size_t taken_count[2];
} cl_panel_sync;

/* options->profile: every command of a round gets an event; the device time of each step is
 * summed after the round (which then waits for the device: the total grows, the steps do not)
 * and logged when the solve is stored. */
typedef struct cl_profile {
    cl_event *events;
    int *kinds;
    size_t count, capacity;
    double seconds[STEP_COUNT];
} cl_profile;

/* Streaming from host memory (stream.c): block buffers on the device, each with pinned staging
 * of the same size on the host, used in turn. */
enum { STREAM_SLOTS = 4 };

typedef struct cl_stream_slot {
    cl_mem block;              /* rows of the matrix on the device, block_rows x n */
    cl_mem columns;            /* the block's K pivot columns before it is relaxed, k-major */
    cl_mem staging;            /* pinned (CL_MEM_ALLOC_HOST_PTR), mapped at host */
    void *host;                /* the solve's element type (layout_cell_bytes) */
    cl_event busy;             /* the slot's last command: the download, or the last kernel */
    size_t row_begin, row_end; /* rows to copy home from staging when busy is done; or none */
} cl_stream_slot;

/* options->profile: a block's commands on the three queues (NULL where it had none). */
typedef struct cl_stream_record {
    cl_event up, first, last, down;
    size_t row_begin, row_end;
} cl_stream_record;

/* The pivot rows of a super-round of K pivots from s: R[c][j] = d(s + c, j), K x n, k-major as
 * fw_stream takes them. rows[cur] is the current super-round's, the other the next one's, which
 * the blocks fill as they pass. */
typedef struct cl_stream {
    stream_shape shape;
    cl_command_queue up_queue, down_queue; /* beside d->queue, which runs the kernels */
    cl_mem rows[2];
    int cur;
    size_t first, count;           /* the current super-round's pivots */
    size_t next_first, next_count; /* the next one's, gathered from the blocks */
    cl_stream_slot slot[STREAM_SLOTS];
    size_t turn; /* the slot to use next */
    uint64_t bytes_up, bytes_down;
    cl_stream_record *records;
    size_t record_count, record_capacity;
} cl_stream;

/* batch.c: a staging slot of a batch's chunks: one pinned buffer mapped for the host (the
 * chunk's index, its cells, its edges and their weights), the device's buffers of them, and the
 * events of the chunk's upload, kernel and download (NULL when none is on the device). */
typedef struct cl_batch_slot {
    cl_mem pinned, index, cells, edges, weights;
    void *host;
    cl_event events[3];
} cl_batch_slot;

typedef struct cl_batch_stage {
    graphs_stage view;
    cl_batch_slot slot[GRAPHS_SLOTS];
} cl_batch_stage;

/* graph_io.c: two pinned batches of rows, mapped for the host, that rows come down through. */
typedef struct row_batches {
    cl_mem buffer[2];
    int32_t *host[2];
    cl_event ready[2];
    size_t rows; /* rows per batch */
} row_batches;

/* Chosen sources on the device (sssp.c and sssp_setup.c, cl/sssp.cl): the program, built at the
 * first prepare and kept; the graph's CSR and the batch's buffers, from prepare to release. */
typedef struct cl_sssp {
    cl_program program;
    int program_kind; /* the DIST_KIND (cl/sssp.cl) the program was built for */
    cl_kernel start, relax, sweep, pred;
    cl_mem offsets, targets, weights;      /* the out-edges: uint V + 1, int E, the type's E */
    cl_mem in_start, in_source, in_weight; /* the in-edges by u, for the predecessors */
    cl_mem dist;        /* batch x V cells of the type: row b from the batch's source b */
    cl_mem queued;      /* a bit per pair: in the next frontier already */
    cl_mem frontier[2]; /* round r reads frontier[r % 2], appends to the other */
    cl_mem far[2];      /* delta-stepping's pairs past the threshold, the current one in turn */
    cl_mem counters, flags, sources;      /* 3 turning frontier sizes; [0]: a negative cycle */
    size_t vertices, edges, batch, count; /* count: the sources of the batch solved last */
    size_t groups;                        /* work-items of a round, striding over its frontier */
    size_t group_items; /* a work-group's items (APPEND_LOCAL: the stage's group; else 0) */
    cl_uint capacity;   /* the pairs a group's stage holds for each list (0: no stage) */
    cl_int delta;       /* delta-stepping's bucket width in keys; APSP_INF (plain rounds): negative
                           weights */
    cl_float key_scale; /* a distance's key per unit (cl/sssp.cl: key_of; int32: its own) */
    sources_run run;    /* the type and whether the predecessors are picked */
    size_t cell;        /* bytes a distance takes on the device */
    sources_device_times times;
    /* The pinned batches the rows come down through (the predecessors' in pred_rows), mapped
     * once by prepare for every batch of sources, unmapped by release. */
    row_batches rows, pred_rows;
} cl_sssp;

/* The instance: backend.h's backend_device first, its impl set to apsp_backend_opencl by open
 * (backend.c: find); the table's entries reach the rest through cl_device_of. */
struct cl_device {
    backend_device base;
    const apsp_options *options;
    cl_platform_id platform;
    cl_device_id device;
    char name[256];
    device_limits limits;
    cl_context context;
    cl_command_queue queue;      /* the kernels, in order */
    cl_command_queue copy_queue; /* panels in and out, beside the kernels */
    kernel_params chosen;        /* choose_params' answer, at open */
    const char *extra_source;    /* a file of cl/ built after fw.cl in one program; NULL: none */
    const char *extra_options;   /* the device's build options beyond the -D defines */
    kernel_params params;        /* the solve's: `chosen`, adapted to the layout by layout_plan */
    apsp_dtype dtype;            /* the solve's element type (layout_plan), the kernels' DIST */
    int negative;                /* the kernels' negative form, -DNEGATIVE: program_set_form */
    int64_t bound; /* NEGATIVE_BOUNDED: the longest real distance (backend.h: kernel_form) */
    cl_mem cycle;  /* NEGATIVE_BOUNDED: the vertex phase 1 found on a negative cycle */
    cl_kernels kernels;
    cl_kernels kept[KEPT_PROGRAMS]; /* most recent first; program == NULL: empty */
    int builds;                     /* programs built since the last summary */
    int shares; /* other devices hold rows of this solve: panels go in and out */
    cl_layout layout;
    cl_event round_done[ROUND_EVENTS]; /* round r's last command at r % ROUND_EVENTS */
    cl_profile profile;
    cl_panel_sync sync;
    cl_stream stream;
    /* predecessors.c: the derivation's program (cl/paths.cl), built at its first use. */
    cl_program paths_program;
    cl_kernel paths_tight;
    /* batch.c: cl/batch.cl's program and kernel per element type, built at its first use; the
     * batch's staging slots, made at its first use and kept (grown when a batch needs more). */
    cl_program batch_program[BATCH_DTYPES];
    cl_kernel batch_kernel[BATCH_DTYPES];
    cl_batch_stage batch_stage;
    cl_sssp sssp;
    /* program_cache.c: the markers of the cache files loaded ("": none), removed at close; and
     * whether the cache directory's refusal was logged. */
    char cache_markers[CACHE_MARKERS][CACHE_PATH_BYTES];
    int cache_refusal_logged;
};

/* backend.c: one listed device opened as the backend's open does, its program built from fw.cl
 * followed by the kernel file `extra_source` of cl/ (apsp-mpi's cl/mpi.cl, whose kernels reuse
 * fw.cl's macros), so that a caller outside the solver gets the device, its parameters and
 * fw.cl's kernels beside its own from one build. */
apsp_status opencl_open_extended(const apsp_device_info *info, const apsp_options *options,
                                 const char *extra_source, cl_device **out, apsp_error *error);

/* program.c: builds the program for d->params unless the one built already matches. */
apsp_status program_prepare(cl_device *d, apsp_error *error);
/* The kernels' form (backend.h: kernel_form); rebuilds the
 * program (or takes it from the cache) when that changes. */
apsp_status program_set_form(backend_device *device, const kernel_form *form, apsp_error *error);
void program_release(cl_kernels *kernels);
/* A program of its own beside fw.cl (cl/paths.cl, cl/sssp.cl): `file` of cl/ built with
 * `options`, or taken from the kernel cache, into *program (the caller releases it). */
apsp_status program_side(cl_device *d, const char *file, const char *options, cl_program *program,
                         apsp_error *error);
void program_release_all(cl_device *d); /* the current one and the kept ones */

/* The kernels' forms (d->negative, cl/fw.cl's NEGATIVE): the add-min, the exact negative form,
 * and the bounded one (the add-min with INF as a long edge, cl/fw.cl). */
enum { NEGATIVE_NONE = 0, NEGATIVE_EXACT = 1, NEGATIVE_BOUNDED = 2 };
/* negative.c: the bounded form's cycle cell, made at open; reset before the rounds (begin, at
 * load) and read after them with the distances above the bound made INF (finish, at store). */
apsp_status negative_open(cl_device *d, apsp_error *error);
void negative_release(cl_device *d);
apsp_status negative_begin(cl_device *d, apsp_error *error);
apsp_status negative_finish(cl_device *d, apsp_error *error);

/* layout.c */
apsp_status layout_plan(backend_device *device, size_t vertices, apsp_dtype dtype,
                        solve_geometry *geometry, apsp_error *error);
/* The band that holds row `row` of the matrix, or NULL when the device holds none of it. */
const cl_band *layout_band_of(const cl_layout *layout, size_t row);
/* Bytes per cell of the solve's matrix (layout_plan's dtype). */
size_t layout_cell_bytes(const cl_device *d);
apsp_status layout_prepare(backend_device *device, const solve_geometry *geometry, size_t row_begin,
                           size_t row_end, apsp_error *error);
apsp_status layout_load(backend_device *device, apsp_matrix *matrix, apsp_error *error);
apsp_status layout_store(cl_device *d, apsp_matrix *matrix, apsp_error *error);
/* Sets the band's cells outside the first real_vertices x real_vertices to INF, and their
 * diagonal to 0 (real_vertices = 0: the whole band). */
apsp_status layout_queue_pad(cl_device *d, const cl_band *band, size_t real_vertices,
                             apsp_error *error);
/* host_memory.c: backend.h's device_memory->host_memory, pinned memory of the device's context. */
apsp_status host_memory_create(backend_device *device, size_t bytes, void **cells,
                               struct apsp_matrix_owner **owner, apsp_error *error);
/* graph_io.c: the rows made on the device from an edge list, and handed out as they come. */
apsp_status layout_load_graph(backend_device *device, const apsp_graph *graph, apsp_error *error);
apsp_status layout_store_rows(cl_device *d, apsp_cells_fn rows, void *context, apsp_error *error);
/* Whether the device makes a matrix of `dtype` from edges (backend.h: takes_graph): int32 and
 * float32 always, int64 and float64 with 64-bit atomics (cl/graph_fill.cl). */
int layout_takes_graph(const cl_device *d, apsp_dtype dtype);
/* The pinned host batches that layout_store_rows hands rows out through, for rows of n cells of
 * `cell` bytes. */
uint64_t graph_io_batch_bytes(size_t n, size_t cell);
void layout_release(cl_device *d);
/* A device whose buffers live in host memory (a CPU device: PoCL) counts against this process's
 * address-space and data limits, which its driver meets by crashing (SIGSEGV loading a program,
 * SIGABRT in pocl_create_migration_commands) rather than failing a call: `buffers` and the
 * driver's own `driver` bytes beyond what is mapped now must fit them, else APSP_ERR_NO_MEMORY
 * naming the limit and `what` needs them. The driver's own, measured with PoCL 3.1 on 2 cores:
 * opening a device and compiling the kernels took 123 MiB of address space (VmPeak 514 MiB after
 * 390 MiB mapped at the open); a solve 14 MiB beyond its buffers and pinned batches at V = 500
 * (VmPeak 533 MiB, 394 MiB mapped before them, 129 MiB of them), at most 61 MiB at V = 4000 (it
 * ran under ulimit -v 680000 with 260 MiB left for 199 MiB of them). Both must also fit what
 * is free now (memory_room.h: MemAvailable, the cgroups' limits), else APSP_ERR_TOO_LARGE. */
enum { DRIVER_OPEN_BYTES = 160 << 20, DRIVER_SOLVE_BYTES = 64 << 20 };
apsp_status layout_check_host_room(const cl_device *d, uint64_t buffers, uint64_t driver,
                                   const char *what, apsp_error *error);
/* What apsp may use of the device's memory (options->device_memory below the global memory),
 * with " (--device-memory)" or " of global memory" at *source when it is not NULL. */
uint64_t layout_memory(const cl_device *d, const char **source);
uint64_t layout_buffer_cap(const cl_device *d); /* the most one buffer may take */
int layout_fits(backend_device *device, const solve_geometry *geometry, size_t rows);
apsp_status layout_create_panels(cl_device *d, apsp_error *error); /* the two pairs */

/* stream.c */
extern const backend_stream opencl_stream;
void stream_release(cl_device *d);

/* rounds.c */
apsp_status rounds_first_panels(cl_device *d, size_t round, apsp_error *error);
apsp_status rounds_close_pivot(backend_device *device, size_t round, apsp_error *error);
apsp_status rounds_relax(backend_device *device, size_t round, size_t row_begin, size_t row_end,
                         apsp_error *error);

/* panels.c: the pivot-row panel out of and into a device, beside the kernels. */
apsp_status panels_get(backend_device *device, size_t round, panel_handoff *handoff,
                       apsp_error *error);
apsp_status panels_put(backend_device *device, size_t round, const panel_handoff *handoff,
                       apsp_error *error);
/* The events phase 3 of round r waits for: the last transfer of the panel it reads, and when it
 * writes the next round's panel (writes_next), of that one. */
cl_uint panels_wait_list(const cl_device *d, size_t round, int writes_next, cl_event list[2]);
/* Keeps `event` (retained) as the latest of its kind; releases the one it replaces. */
void panels_keep(cl_event *slot, cl_event event);
void panels_release(cl_device *d);
apsp_status rounds_wait(backend_device *device, size_t round, apsp_error *error);
void rounds_log_profile(const cl_device *d); /* with options->profile */
void rounds_release(cl_device *d);

/* predecessors.c: backend.h's backend_paths, derive and prepare (the program);
 * its release (at close). */
apsp_status predecessors_derive(backend_device *device, const paths_csr *csr, int32_t *pred,
                                int *untight, apsp_error *error);
apsp_status predecessors_prepare(backend_device *device, apsp_error *error);
void predecessors_release(cl_device *d);

/* batch.c: backend.h's backend_graphs; the programs' and the slots' release (at close). */
size_t batch_most_vertices(backend_device *device, apsp_dtype dtype);
apsp_status batch_stage(backend_device *device, apsp_dtype dtype, size_t bytes, size_t graphs,
                        graphs_stage **out, graphs_times *times, apsp_error *error);
apsp_status batch_start(backend_device *device, size_t s, apsp_dtype dtype, apsp_error *error);
apsp_status batch_finish(backend_device *device, size_t s, graphs_times *times, apsp_error *error);
void batch_release(cl_device *d);

/* sssp.c: backend.h's backend_sources; the program's release (at close). */
extern const backend_sources opencl_sources;
void sssp_release_program(cl_device *d);

/* (row_batches, above) */
apsp_status row_batches_map(cl_device *d, row_batches *b, size_t row_bytes, apsp_error *error);
void row_batches_unmap(cl_device *d, row_batches *b); /* also after a failure */
/* Until batch k's read (of rows from `row`, for the error) is done. */
apsp_status row_batches_wait(row_batches *b, int k, size_t row, apsp_error *error);
/* Batch k, once its read is done, to rows(context, row, count, ...). */
apsp_status row_batches_hand_on(row_batches *b, int k, size_t row, size_t count, size_t vertices,
                                apsp_cells_fn rows, void *context, apsp_error *error);

/* Sets kernel argument `index`, reporting the kernel's name on failure. */
#define SET_ARG(kernel, name, index, value)                                                        \
    do {                                                                                           \
        cl_int e_ = clSetKernelArg(kernel, index, sizeof(value), &(value));                        \
        if (e_ != CL_SUCCESS)                                                                      \
            return cl_fail(error, APSP_ERR_DEVICE, e_, "clSetKernelArg(%s, %d)", name, index);     \
    } while (0)

#endif
