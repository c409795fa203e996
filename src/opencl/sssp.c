/* Chosen sources on an OpenCL device (backend.h: backend_sources): batched Bellman-Ford over a
 * frontier of (source, vertex) pairs, cl/sssp.cl (which says how a round works). The graph's CSR
 * goes up once (and the in-edges' for the predecessors); each batch of sources is one B x V block
 * of the rows' type on the device, relaxed round after round until its frontier is empty and a
 * sweep over every reached pair lowers nothing, its predecessors picked when asked for, then
 * handed down row by row through pinned batches (the predecessors' rows first). The host queues
 * ROUNDS_PER_READ rounds at a time and reads only the frontier's size and the cycle flag between
 * them, so a round costs one kernel launch, not a round trip.
 *
 * Memory per source of a batch: the block (4 V or 8 V), the queued bits (V / 8), two frontiers
 * and two far lists (4 V each; a pair is in at most one of them; the predecessors come down
 * through a frontier); the batch is as many sources as fit what apsp may use of the device
 * (--device-memory below the global memory), the buffer cap and B V < 2^32 (the kernels name a
 * pair by b V + u). */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/util.h"
#include "opencl/device.h"
#include "opencl/sssp_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The source-edges per second of auto's cost model (method.c), re-relaxations included. PoCL's
 * CPU device: on the 2-core development machine the 500 x 500 grid with 20 sources (2 x 10^7
 * source-edges) took 0.78 to 2.8 s of compute under the other engineers' load (the pthread
 * Dijkstra 2.1 s on 2 threads), so 10^7, at which auto keeps the pthread Dijkstra there. A GPU:
 * from one run of tests/gpu/sssp.sh on an H100 with the appends staged (1000 sources over the
 * 3.996 x 10^6 edges of the 1000 x 1000 grid in 0.793 s of compute, median of 3; 1.65 s and
 * 2.4e9 before); one graph and one GPU: other graphs and GPUs are still to be fitted with that
 * script. */
#define SSSP_CPU_DEVICE_SOURCE_EDGES_PER_SECOND 1e7
#define SSSP_GPU_SOURCE_EDGES_PER_SECOND 5.0e9

/* The other parts of the cost model (backend.h: sources_device_costs), NOT YET MEASURED on a
 * GPU: placeholders of the right order, to be fitted with tests/gpu/sssp.sh's parts (its
 * APSP_PROFILE=1 row gives upload, rounds, kernels and download per case): the fixed seconds
 * (the program from the cache, ~10^4 round launches), PCIe-class transfers up and down
 * (pinned: ~10 GB/s), and the 64-bit cells' share of the int32 rate (int64 and float64: the
 * block and atomics twice as wide; tests/gpu/sssp.sh's int64 and real cases against int32's).
 * PoCL's CPU device: its memory is the host's (a copy, ~5 GB/s on the 2-core machine). */
#define SSSP_GPU_FIXED_SECONDS 0.1
#define SSSP_GPU_TRANSFER_BYTES_PER_SECOND 10e9
#define SSSP_GPU_WIDE_SHARE 0.6
#define SSSP_CPU_DEVICE_FIXED_SECONDS 0.1
#define SSSP_CPU_DEVICE_TRANSFER_BYTES_PER_SECOND 5e9
#define SSSP_CPU_DEVICE_WIDE_SHARE 0.8

/* Rounds queued between two reads of the frontier's size; work-items a compute unit gets for a
 * round (the grid strides over the frontier: on the H200's grid runs above 128, 256, 512, 1024
 * and 2048 a unit took 1.72, 1.47, 1.43, 1.63 and 1.70 s). */
enum { ROUNDS_PER_READ = 32, ITEMS_PER_GPU_UNIT = 512, ITEMS_PER_CPU_UNIT = 256 };

static void sssp_costs(backend_device *device, sources_device_costs *c) {
    cl_device *d = cl_device_of(device);
    int gpu = (d->limits.type & CL_DEVICE_TYPE_GPU) != 0;
    double transfer =
        gpu ? SSSP_GPU_TRANSFER_BYTES_PER_SECOND : SSSP_CPU_DEVICE_TRANSFER_BYTES_PER_SECOND;
    *c = (sources_device_costs){
        .fixed_seconds = gpu ? SSSP_GPU_FIXED_SECONDS : SSSP_CPU_DEVICE_FIXED_SECONDS,
        .upload_bytes_per_second = transfer,
        .source_edges_per_second =
            gpu ? SSSP_GPU_SOURCE_EDGES_PER_SECOND : SSSP_CPU_DEVICE_SOURCE_EDGES_PER_SECOND,
        .wide_share = gpu ? SSSP_GPU_WIDE_SHARE : SSSP_CPU_DEVICE_WIDE_SHARE,
        .download_bytes_per_second = transfer};
}

void sssp_release_program(cl_device *d) {
    cl_sssp *s = &d->sssp;
    cl_kernel *kernels[] = {&s->start, &s->relax, &s->sweep, &s->pred};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (*kernels[i])
            clReleaseKernel(*kernels[i]), *kernels[i] = NULL;
    if (s->program)
        clReleaseProgram(s->program), s->program = NULL;
}

static void sssp_release(backend_device *device, sources_device_times *times) {
    cl_device *d = cl_device_of(device);
    cl_sssp *s = &d->sssp;
    if (d->queue)
        clFinish(d->queue);
    cl_uint flags[3] = {0, 0, 0}; /* the first three of FLAG_COUNT */
    if (s->flags && clEnqueueReadBuffer(d->queue, s->flags, CL_TRUE, 0, sizeof flags, flags, 0,
                                        NULL, NULL) == CL_SUCCESS)
        s->times.pairs = (size_t)((uint64_t)flags[2] << 32 | flags[1]);
    if (times)
        *times = s->times;
    row_batches_unmap(d, &s->rows);
    row_batches_unmap(d, &s->pred_rows);
    s->rows = s->pred_rows = (row_batches){0};
    cl_mem *mems[] = {&s->offsets,   &s->targets, &s->weights,  &s->in_start,    &s->in_source,
                      &s->in_weight, &s->dist,    &s->queued,   &s->frontier[0], &s->frontier[1],
                      &s->far[0],    &s->far[1],  &s->counters, &s->flags,       &s->sources};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]), *mems[i] = NULL;
    s->times = (sources_device_times){0};
}

/* 64-bit cells take 64-bit atomics (cl/sssp.cl: cell_min, at least the compare-and-swap of
 * the base extension), and double needs cl_khr_fp64. */
static const char *sssp_declines(backend_device *device, apsp_dtype dtype) {
    cl_device *d = cl_device_of(device);
    if ((dtype == APSP_INT64 || dtype == APSP_FLOAT64) &&
        !cl_has_extension(d->device, "cl_khr_int64_base_atomics"))
        return "it has no 64-bit atomics (cl_khr_int64_base_atomics) for these rows";
    if (dtype == APSP_FLOAT64 && !d->limits.fp64)
        return "it has no double precision (cl_khr_fp64) for float64 rows";
    return NULL;
}

static apsp_status sssp_prepare(backend_device *device, const adjacency *g, size_t sources,
                                sources_run run, size_t *batch, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_sssp *s = &d->sssp;
    sssp_release(&d->base, NULL); /* a failed run's leftovers */
    double start = seconds_now();
    s->run = run;
    s->cell = apsp_dtype_size(run.dtype);
    s->vertices = g->vertices;
    s->edges = g->start[g->vertices];
    cl_uint units = 1;
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    s->groups =
        (units ? units : 1) *
        (size_t)(d->limits.type & CL_DEVICE_TYPE_GPU ? ITEMS_PER_GPU_UNIT : ITEMS_PER_CPU_UNIT);
    apsp_status status = sssp_setup(d, g, sources, error);
    /* Pinned once for the run: on NVIDIA's driver each buffer is page-locked memory, slow to
     * make, that the rows reach at the bus's speed (host_memory.c). */
    if (status == APSP_OK)
        status = row_batches_map(d, &s->rows, s->vertices * s->cell, error);
    if (status == APSP_OK && run.pred)
        status = row_batches_map(d, &s->pred_rows, s->vertices * s->cell, error);
    s->times.upload += seconds_now() - start;
    *batch = s->batch;
    return status;
}

/* `items` work-items in groups of `group_items` (0: the driver's choice). */
static apsp_status enqueue(cl_device *d, cl_kernel kernel, const char *name, size_t items,
                           size_t group_items, cl_event *event, apsp_error *error) {
    cl_int err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(
        d->queue, kernel, 1, NULL, &items, group_items ? &group_items : NULL, 0, NULL, event));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(%s)", name);
}

/* The type's unreachable cell (cl/sssp.cl: CELL_INF) into `cell` (s->cell bytes). */
static void unreachable_cell(apsp_dtype dtype, void *cell) {
    const cl_int int32 = APSP_INF, float32 = 0x7f800000; /* +inf's bits */
    const cl_long int64 = APSP_INF64, float64 = 0x7ff0000000000000;
    const void *of[] = {[APSP_INT32] = &int32,
                        [APSP_INT64] = &int64,
                        [APSP_FLOAT32] = &float32,
                        [APSP_FLOAT64] = &float64};
    memcpy(cell, of[dtype], apsp_dtype_size(dtype));
}

/* The block INF, no pair queued, the sources at 0 and in the first frontier. */
static apsp_status start_batch(cl_device *d, const int32_t *sources, size_t count,
                               apsp_error *error) {
    cl_sssp *s = &d->sssp;
    cl_uint pairs = (cl_uint)(count * s->vertices), zero = 0, n = (cl_uint)count,
            v = (cl_uint)s->vertices;
    cl_long inf;
    unreachable_cell(s->run.dtype, &inf);
    cl_int delta = s->delta;
    cl_int err = FAULT_CL_STATUS(clEnqueueFillBuffer(d->queue, s->dist, &inf, s->cell, 0,
                                                     (size_t)pairs * s->cell, 0, NULL, NULL));
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clEnqueueFillBuffer(d->queue, s->queued, &zero, sizeof zero, 0,
                                                  ((size_t)pairs + 31) / 32 * 4, 0, NULL, NULL));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueFillBuffer(distances)");
    apsp_status status = sssp_write(d, s->sources, sources, count * 4, "sources", error);
    if (status != APSP_OK)
        return status;
    SET_ARG(s->start, "sssp_start", 0, s->sources);
    SET_ARG(s->start, "sssp_start", 1, n);
    SET_ARG(s->start, "sssp_start", 2, v);
    SET_ARG(s->start, "sssp_start", 3, delta);
    SET_ARG(s->start, "sssp_start", 4, s->dist);
    SET_ARG(s->start, "sssp_start", 5, s->queued);
    SET_ARG(s->start, "sssp_start", 6, s->frontier[0]);
    SET_ARG(s->start, "sssp_start", 7, s->counters);
    SET_ARG(s->start, "sssp_start", 8, s->flags);
    return enqueue(d, s->start, "sssp_start", (count + 63) / 64 * 64, 0, NULL, error);
}

/* The arguments the round and the sweep share after their first ones: the CSR, the block, the
 * queued bits, (frontier), next frontier, counters, flags; and their last three, the stage
 * (local memory for both lists, a word where there is none), its capacity and the key scale. */
static apsp_status set_graph_args(cl_device *d, cl_kernel k, const char *name, cl_uint first,
                                  cl_uint stage, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    SET_ARG(k, name, first, s->offsets);
    SET_ARG(k, name, first + 1, s->targets);
    SET_ARG(k, name, first + 2, s->weights);
    SET_ARG(k, name, first + 3, s->dist);
    SET_ARG(k, name, first + 4, s->queued);
    size_t stage_bytes = s->capacity ? 2 * (size_t)s->capacity * 4 : 4;
    cl_int err = clSetKernelArg(k, stage, stage_bytes, NULL);
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clSetKernelArg(%s, %u)", name, stage);
    SET_ARG(k, name, stage + 1, s->capacity);
    SET_ARG(k, name, stage + 2, s->key_scale);
    return APSP_OK;
}

/* With options->profile: the kernel's device time added to times.kernels. */
static void add_kernel_time(cl_event event, double *seconds) {
    cl_ulong begin = 0, end = 0;
    if (clWaitForEvents(1, &event) == CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof begin, &begin, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS &&
        end > begin)
        *seconds += (double)(end - begin) * 1e-9;
    clReleaseEvent(event);
}

static apsp_status queue_round(cl_device *d, size_t round, cl_event *event, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    cl_uint r = (cl_uint)round, v = (cl_uint)s->vertices;
    apsp_status status = set_graph_args(d, s->relax, "sssp_relax", 3, 14, error);
    if (status != APSP_OK)
        return status;
    SET_ARG(s->relax, "sssp_relax", 0, r);
    SET_ARG(s->relax, "sssp_relax", 1, v);
    SET_ARG(s->relax, "sssp_relax", 2, s->delta);
    SET_ARG(s->relax, "sssp_relax", 8, s->frontier[round % 2]);
    SET_ARG(s->relax, "sssp_relax", 9, s->frontier[(round + 1) % 2]);
    SET_ARG(s->relax, "sssp_relax", 10, s->counters);
    SET_ARG(s->relax, "sssp_relax", 11, s->flags);
    SET_ARG(s->relax, "sssp_relax", 12, s->far[0]);
    SET_ARG(s->relax, "sssp_relax", 13, s->far[1]);
    return enqueue(d, s->relax, "sssp_relax", s->groups, s->group_items, event, error);
}

/* Every reached pair relaxed once more into round `round`'s frontier, whose size is 0. */
static apsp_status queue_sweep(cl_device *d, size_t round, cl_event *event, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    cl_uint pairs = (cl_uint)(s->count * s->vertices), v = (cl_uint)s->vertices,
            slot = (cl_uint)(round % 3);
    apsp_status status = set_graph_args(d, s->sweep, "sssp_sweep", 3, 11, error);
    if (status != APSP_OK)
        return status;
    SET_ARG(s->sweep, "sssp_sweep", 0, pairs);
    SET_ARG(s->sweep, "sssp_sweep", 1, v);
    SET_ARG(s->sweep, "sssp_sweep", 2, slot);
    SET_ARG(s->sweep, "sssp_sweep", 8, s->frontier[round % 2]);
    SET_ARG(s->sweep, "sssp_sweep", 9, s->counters);
    SET_ARG(s->sweep, "sssp_sweep", 10, s->flags);
    return enqueue(d, s->sweep, "sssp_sweep", s->groups, s->group_items, event, error);
}

/* The pairs waiting before round `round` (its frontier and the far list) and the cycle flag. */
static apsp_status read_state(cl_device *d, size_t round, cl_uint *size, cl_uint *floor_hit,
                              apsp_error *error) {
    cl_sssp *s = &d->sssp;
    cl_uint flags[FLAG_COUNT];
    cl_int err = FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, s->counters, CL_TRUE,
                                                     (round % 3) * 4, 4, size, 0, NULL, NULL));
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, s->flags, CL_TRUE, 0, sizeof flags,
                                                  flags, 0, NULL, NULL));
    if (err == CL_SUCCESS) {
        *floor_hit = flags[0];
        *size += flags[F_FAR_COUNT] + flags[F_FAR_COUNT + 1];
    }
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(frontier size)");
}

/* Rounds until the frontier is empty and a sweep lowers nothing; *cycle when a pair is still
 * lowered after V rounds or a sum fell below every simple path. */
static apsp_status run_rounds(cl_device *d, int *cycle, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    int profile = d->options->profile;
    size_t round = 0;
    cl_uint size = 1, floor_hit = 0;
    apsp_status status = APSP_OK;
    while (status == APSP_OK) {
        for (int i = 0; i < ROUNDS_PER_READ && status == APSP_OK; i++, round++) {
            cl_event event = NULL;
            status = queue_round(d, round, profile ? &event : NULL, error);
            if (event)
                add_kernel_time(event, &s->times.kernels); /* waits: profiling only */
        }
        if (status == APSP_OK)
            status = read_state(d, round, &size, &floor_hit, error);
        int bellman_ford = s->delta == APSP_INF; /* negative weights: V rounds at most */
        if (status != APSP_OK || floor_hit || (bellman_ford && size > 0 && round >= s->vertices)) {
            *cycle = floor_hit || size > 0;
            break;
        }
        if (size > 0)
            continue;
        cl_event event = NULL;
        s->times.sweeps++;
        status = queue_sweep(d, round, profile ? &event : NULL, error);
        if (event)
            add_kernel_time(event, &s->times.kernels);
        if (status == APSP_OK)
            status = read_state(d, round, &size, &floor_hit, error);
        if (status == APSP_OK && size == 0 && !floor_hit)
            break;
    }
    s->times.round_count += round;
    return status;
}

/* The predecessors of the batch's pairs into frontier[1] (free once the rounds are done);
 * *untight when some reached vertex had none the rule takes (cl/sssp.cl: sssp_pred). */
static apsp_status pick_predecessors(cl_device *d, int *untight, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    cl_uint pairs = (cl_uint)(s->count * s->vertices), v = (cl_uint)s->vertices, flag = 0;
    SET_ARG(s->pred, "sssp_pred", 0, pairs);
    SET_ARG(s->pred, "sssp_pred", 1, v);
    SET_ARG(s->pred, "sssp_pred", 2, s->sources);
    SET_ARG(s->pred, "sssp_pred", 3, s->in_start);
    SET_ARG(s->pred, "sssp_pred", 4, s->in_source);
    SET_ARG(s->pred, "sssp_pred", 5, s->in_weight);
    SET_ARG(s->pred, "sssp_pred", 6, s->dist);
    SET_ARG(s->pred, "sssp_pred", 7, s->frontier[1]);
    SET_ARG(s->pred, "sssp_pred", 8, s->flags);
    apsp_status status =
        enqueue(d, s->pred, "sssp_pred", ((size_t)pairs + 255) / 256 * 256, 0, NULL, error);
    cl_int err = status == APSP_OK
                     ? FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, s->flags, CL_TRUE,
                                                           F_UNTIGHT * sizeof flag, sizeof flag,
                                                           &flag, 0, NULL, NULL))
                     : CL_SUCCESS;
    if (err != CL_SUCCESS)
        status = cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(predecessors' flag)");
    *untight = flag != 0;
    return status;
}

static apsp_status sssp_solve(backend_device *device, const int32_t *sources, size_t count,
                              int *give_up, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_sssp *s = &d->sssp;
    int *cycle = give_up;
    *cycle = 0;
    if (count == 0 || count > s->batch)
        return fail(error, APSP_ERR_INTERNAL, "chosen sources: a batch of %zu of %zu", count,
                    s->batch);
    double start = seconds_now();
    s->count = count;
    s->times.batches++;
    apsp_status status = start_batch(d, sources, count, error);
    cl_int err = status == APSP_OK ? FAULT_CL_STATUS(clFinish(d->queue)) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        status = cl_fail(error, APSP_ERR_DEVICE, err, "clFinish(chosen sources' start)");
    double started = seconds_now();
    s->times.upload += started - start;
    if (status == APSP_OK)
        status = run_rounds(d, cycle, error);
    if (status == APSP_OK && !*cycle && s->run.pred)
        status = pick_predecessors(d, give_up, error);
    s->times.rounds += seconds_now() - started;
    return status;
}

/* `count` rows from `row` of `mem` (cells of `cell` bytes) into pinned batch k of b. */
static apsp_status read_rows(cl_device *d, cl_mem mem, size_t cell, row_batches *b, int k,
                             size_t row, size_t count, apsp_error *error) {
    size_t row_bytes = d->sssp.vertices * cell;
    if (b->ready[k])
        clReleaseEvent(b->ready[k]), b->ready[k] = NULL;
    cl_int err =
        FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, mem, CL_FALSE, row * row_bytes,
                                            count * row_bytes, b->host[k], 0, NULL, &b->ready[k]));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(source rows %zu)", row);
}

/* Where the rows go: the distances' cells function, and the predecessors' (or NULL). */
typedef struct rows_out {
    size_t first; /* the batch's first row in the caller's count */
    apsp_cells_fn rows;
    void *context;
    apsp_rows_fn pred;
    void *pred_context;
    double handed; /* seconds in those functions */
} rows_out;

/* Pinned batch k (rows `row`... of the batch), once there, to the caller: its predecessors
 * (batch k of p, with the run's) and then its distances. */
static apsp_status hand_on(row_batches *b, row_batches *p, int k, size_t row, size_t count,
                           size_t vertices, rows_out *out, apsp_error *error) {
    apsp_status status = out->pred ? row_batches_wait(p, k, row, error) : APSP_OK;
    if (status == APSP_OK)
        status = row_batches_wait(b, k, row, error);
    double start = seconds_now();
    if (status == APSP_OK && out->pred)
        status = out->pred(out->pred_context, out->first + row, count, p->host[k], vertices, error);
    if (status == APSP_OK)
        status = out->rows(out->context, out->first + row, count, b->host[k], vertices, error);
    out->handed += seconds_now() - start;
    return status;
}

/* The batch's rows down through the two pinned batches (and two more for the predecessors, of
 * the same rows): the next one comes while the caller takes (writes) the last. */
static apsp_status sssp_store_rows(backend_device *device, size_t first, apsp_cells_fn rows,
                                   void *context, apsp_rows_fn pred, void *pred_context,
                                   apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_sssp *s = &d->sssp;
    double start = seconds_now();
    row_batches *b = &s->rows, *p = &s->pred_rows;
    rows_out out = {first, rows, context, s->run.pred ? pred : NULL, pred_context, 0.0};
    apsp_status status = APSP_OK;
    size_t last_row = 0, last_count = 0;
    int k = 0;
    for (size_t row = 0; row < s->count && status == APSP_OK; k ^= 1) {
        size_t count = s->count - row < b->rows ? s->count - row : b->rows;
        if (out.pred)
            status = read_rows(d, s->frontier[1], 4, p, k, row, count, error);
        if (status == APSP_OK)
            status = read_rows(d, s->dist, s->cell, b, k, row, count, error);
        if (status == APSP_OK && last_count)
            status = hand_on(b, p, k ^ 1, last_row, last_count, s->vertices, &out, error);
        last_row = row, last_count = count;
        row += count;
    }
    if (status == APSP_OK && last_count)
        status = hand_on(b, p, k ^ 1, last_row, last_count, s->vertices, &out, error);
    if (status != APSP_OK)
        clFinish(d->queue); /* no read left going into the pinned batches */
    s->times.handed += out.handed;
    s->times.download += seconds_now() - start - out.handed;
    return status;
}

const backend_sources opencl_sources = {
    .costs = sssp_costs,
    .declines = sssp_declines,
    .prepare = sssp_prepare,
    .solve = sssp_solve,
    .store_rows = sssp_store_rows,
    .release = sssp_release,
};
