/* The OpenCL backend's block engine for apsp-mpi's ranks (backend/blocks.h), private to
 * src/opencl/: its instance (blocks.c: the steps; blocks_moves.c: host memory, transfers and the
 * profile). Two queues of the device: the kernels on `queue`, in order; the panels taken in from
 * MPI, and the outputs the host needs, on `copy_queue`, beside them. Events order the two; the host
 * waits only where it needs data (an output MPI sends) and at the end of each round's relaxation,
 * after which every host buffer the device read from is free again. */
#ifndef APSP_OPENCL_BLOCKS_H
#define APSP_OPENCL_BLOCKS_H

#include "backend/blocks.h"
#include "opencl/device.h"

/* The table, for the backend's (backend.c). */
extern const backend_blocks opencl_blocks;

/* What the profile sums (APSP_PROFILE=1): device time of each kind of command. */
enum {
    PROF_NONE = -1, /* not in the rounds' figures (the load and the store) */
    PROF_PHASE1,
    PROF_PHASE2,
    PROF_PHASE3,
    PROF_UP,   /* panels from MPI onto the device, their transpose included */
    PROF_DOWN, /* outputs to the host for MPI */
    PROF_COPY, /* on the device: the pivot in and out of the matrix, own panels, transposes */
    PROF_KINDS
};

/* Pinned host buffers handed to rounds.c (the pivot and two pairs of panels). */
enum { PINNED = 8, OUTPUTS = 3 };

typedef struct engine_profile {
    cl_event *events;
    int *kinds;
    size_t count, capacity;
    double seconds[PROF_KINDS];
    uint64_t up_bytes, down_bytes;
    double wait_outputs, wait_relax; /* host seconds in outputs_ready and at the round's end */
} engine_profile;

struct block_engine {
    apsp_options options; /* the device keeps a pointer to them */
    cl_device *d;
    char where[320]; /* for describe */
    cl_kernel product, transpose;
    cl_mem m, pivot, pivot_t, a[2], b[2], col_in, left, right;
    int turn; /* the panel pair the round being relaxed reads; the next round's is turn ^ 1 */
    size_t rows, cols, w, block_rows, block_cols;
    /* The next round's chain: the pivot this engine closed (in `pivot`), the panels it made
     * (already in a[turn ^ 1], b[turn ^ 1]), and whether the other panels went up already. */
    int own_pivot, own_row, own_col, taken_in;
    cl_event outputs[OUTPUTS]; /* reads to the host that outputs_ready waits for */
    size_t output_count;
    cl_mem pinned[PINNED];
    void *pinned_host[PINNED];
    engine_profile profile;
    apsp_status status; /* the first failure, sticky */
    apsp_error error;
};

/* Records the first failure (err != CL_SUCCESS) and returns nonzero; every later step sees it
 * and does nothing. */
int engine_failed(block_engine *e, cl_int err, const char *what);

/* Where the next command of `kind` puts its event for the profile: NULL unless profiling. */
cl_event *profile_slot(block_engine *e, int kind);
/* Adds the device times of the profiled commands that are done (all of them with `all`, after
 * the queues were drained). */
void profile_collect(block_engine *e, int all);
void profile_release(block_engine *e);

/* A rectangle of ints between host memory (pitch host_pitch) and a device buffer (pitch
 * buffer_pitch, from row `row`, column `col`) on queue q: blocking when `wait`, else after
 * `after` (or NULL), with its event in *done (or NULL). */
typedef struct rect_move {
    int up;
    cl_mem buffer;
    size_t row, col, buffer_pitch;
    void *host;
    size_t host_pitch, rows, cols;
} rect_move;
void move_rect(block_engine *e, cl_command_queue q, const rect_move *m, cl_bool wait,
               cl_event after, cl_event *done, int kind);

/* A B-wide strip of `rows` rows (src + src_offset, pitch src_pitch) into a k-major panel (dst +
 * dst_offset, pitch w), on queue q. */
void transpose_on(block_engine *e, cl_command_queue q, cl_mem src, size_t src_offset,
                  size_t src_pitch, cl_mem dst, size_t dst_offset, size_t rows, int kind);

/* The next round's panels that this engine did not make, from host memory onto the device on
 * the copy queue; the kernels after this call wait for them. */
void take_in(block_engine *e, const int32_t *col_panel, const int32_t *row_panel);
/* An output to the host on the copy queue, after everything queued for the kernels so far;
 * outputs_ready waits for it. */
void read_out(block_engine *e, const rect_move *m);
void engine_outputs_ready(block_engine *e);
void outputs_release(block_engine *e);

apsp_status engine_panel_memory(block_engine *e, size_t ints, int32_t **out, apsp_error *error);
void engine_panel_memory_free(block_engine *e, int32_t *memory);
void pinned_release(block_engine *e);
void engine_log_profile(block_engine *e, size_t rounds, double seconds);

#endif
