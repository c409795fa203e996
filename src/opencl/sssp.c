/* Chosen sources on an OpenCL device (backend.h: backend_sources): batched Bellman-Ford over a
 * frontier of (source, vertex) pairs, cl/sssp.cl (which says how a round works). The graph's CSR
 * goes up once; each batch of sources is one B x V int32 block on the device, relaxed round after
 * round until its frontier is empty and a sweep over every reached pair lowers nothing, then
 * handed down row by row through pinned batches. The host queues ROUNDS_PER_READ rounds at a
 * time and reads only the frontier's size and the cycle flag between them, so a round costs one
 * kernel launch, not a round trip.
 *
 * Memory per source of a batch: the block (4 V), the queued bits (V / 8), two frontiers and two
 * far lists (4 V each; a pair is in at most one of them); the batch is as many sources as fit what
 * apsp may use of the device (--device-memory below the global memory), the buffer cap and B V <
 * 2^32 (the kernels name a pair by b V + u). */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/util.h"
#include "opencl/device.h"

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

/* The flags' words (cl/sssp.cl: F_*): a negative cycle, the pairs taken (64 bits), the
 * threshold, the current far list, the two lists' sizes and least distances, the sort's turn,
 * the round's work-groups done. */
enum { FLAG_COUNT = 11, F_FAR_COUNT = 5 };

/* The bucket width of delta-stepping: this many times the mean weight. On an H200, 1000 sources
 * of the 1000 x 1000 grid (compute_s, two runs each): 0.5 (with three kernels a round) 2.42 s,
 * 1 1.45 s, 1.5 1.47 s, 2 1.43 s, 3 1.55 s; wider buckets take fewer rounds and more pairs. */
#define SSSP_DELTA_PER_MEAN_WEIGHT 2.0

/* Rounds queued between two reads of the frontier's size; work-items a compute unit gets for a
 * round (the grid strides over the frontier: on the H200's grid runs above 128, 256, 512, 1024
 * and 2048 a unit took 1.72, 1.47, 1.43, 1.63 and 1.70 s); the share of the memory a batch may
 * take. */
enum { ROUNDS_PER_READ = 32, ITEMS_PER_GPU_UNIT = 512, ITEMS_PER_CPU_UNIT = 256 };
#define SSSP_MEMORY_SHARE 0.9

/* How the rounds append what they lower (cl/sssp.cl's APPEND_LOCAL): 1, a work-group stages a
 * chunk's appends in local memory and reserves each list's range with one global atomic per
 * chunk; 0, the first form, one global atomic_inc on the list's counter per append, launched as
 * before (the driver's work-group size). A build flag, so that both can be timed from one tree:
 * meson setup BUILD -Dc_args=-DSSSP_APPEND_LOCAL=0. */
#ifndef SSSP_APPEND_LOCAL
#define SSSP_APPEND_LOCAL 1
#endif

/* With APPEND_LOCAL: a work-group's items (fewer where the kernels allow fewer), and the pairs
 * its stage holds per item for each list. A grid round lowers about one pair per item, so 4 leave
 * room for a chunk's spread; what does not fit takes the global atomic (a hub's out-edges). Build
 * flags too (-Dc_args=-DSSSP_STAGE_PAIRS=0: the same groups, every append global), so that a
 * timing can tell the work-group's size from the staging. */
#ifndef SSSP_GROUP_ITEMS
#define SSSP_GROUP_ITEMS 256
#endif
#ifndef SSSP_STAGE_PAIRS
#define SSSP_STAGE_PAIRS 4
#endif

/* Whether this device's rounds stage their appends (SSSP_APPEND_LOCAL): GPUs and accelerators
 * only. PoCL 5.0's kernel compiler (Ubuntu 24.04's) aborts the whole process on the staged
 * kernels' barriers inside their chunk loops (Kernel.cc: createParallelRegionBefore, assertion
 * region_entry_barrier != NULL) where PoCL 3.1 builds them; a CPU device, whose atomics on one
 * line cost less than a GPU's, keeps the first form. */
static int stages_appends(const backend_device *d) {
    return SSSP_APPEND_LOCAL && !(d->limits.type & CL_DEVICE_TYPE_CPU);
}

static double sssp_rate(backend_device *d) {
    return d->limits.type & CL_DEVICE_TYPE_GPU ? SSSP_GPU_SOURCE_EDGES_PER_SECOND
                                               : SSSP_CPU_DEVICE_SOURCE_EDGES_PER_SECOND;
}

void sssp_release_program(backend_device *d) {
    cl_sssp *s = &d->sssp;
    cl_kernel *kernels[] = {&s->start, &s->relax, &s->sweep};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (*kernels[i])
            clReleaseKernel(*kernels[i]), *kernels[i] = NULL;
    if (s->program)
        clReleaseProgram(s->program), s->program = NULL;
}

static apsp_status build_kernels(backend_device *d, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    if (s->sweep)
        return APSP_OK;
    char options[32];
    snprintf(options, sizeof options, "-DAPPEND_LOCAL=%d", stages_appends(d));
    apsp_status status =
        s->program ? APSP_OK : program_side(d, "sssp.cl", options, &s->program, error);
    const char *names[] = {"sssp_start", "sssp_relax", "sssp_sweep"};
    cl_kernel *kernels[] = {&s->start, &s->relax, &s->sweep};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && status == APSP_OK; i++) {
        cl_int err;
        *kernels[i] = FAULT_CL_OBJECT(&err, clCreateKernel(s->program, names[i], &err));
        if (err != CL_SUCCESS)
            status = cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(%s)", names[i]);
    }
    return status;
}

/* What a kernel allows of the work-group size and the local memory its stage may take. */
static void kernel_room(backend_device *d, cl_kernel kernel, size_t *items, cl_ulong *local) {
    size_t most = 0;
    cl_ulong fixed = 0;
    if (clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                 NULL) == CL_SUCCESS &&
        most < *items)
        *items = most;
    clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof fixed, &fixed,
                             NULL);
    cl_ulong room = d->limits.local_memory > fixed ? d->limits.local_memory - fixed : 0;
    if (room < *local)
        *local = room;
}

/* The rounds' work-groups and stages (SSSP_APPEND_LOCAL), and the grid a whole number of groups.
 * A device with no room for a stage appends as the first form did: capacity 0 sends every
 * append to the global atomic. */
static void plan_groups(backend_device *d) {
    cl_sssp *s = &d->sssp;
    s->group_items = 0;
    s->capacity = 0;
    if (!stages_appends(d))
        return;
    size_t items = SSSP_GROUP_ITEMS;
    cl_ulong local = UINT32_MAX;
    kernel_room(d, s->relax, &items, &local);
    kernel_room(d, s->sweep, &items, &local);
    s->group_items = items ? items : 1;
    cl_ulong capacity = (cl_ulong)SSSP_STAGE_PAIRS * s->group_items, fits = local / 8;
    s->capacity = (cl_uint)(capacity < fits ? capacity : fits);
    s->groups = (s->groups + s->group_items - 1) / s->group_items * s->group_items;
}

static uint64_t bytes_per_source(size_t vertices) {
    return 20 * (uint64_t)vertices + (vertices + 31) / 32 * 4 + 4;
}

/* The sources of a batch: what fits, at least one (else APSP_ERR_TOO_LARGE), at most `sources`. */
static apsp_status plan_batch(backend_device *d, size_t vertices, size_t edges, size_t sources,
                              size_t *batch, apsp_error *error) {
    const char *source;
    uint64_t memory = (uint64_t)(SSSP_MEMORY_SHARE * (double)layout_memory(d, &source));
    uint64_t graph = 4 * (uint64_t)(vertices + 1) + 8 * (uint64_t)edges + 64;
    uint64_t per = bytes_per_source(vertices), row = 4 * (uint64_t)vertices;
    uint64_t by_memory = memory > graph ? (memory - graph) / per : 0;
    uint64_t by_cap = layout_buffer_cap(d) / row, by_index = UINT32_MAX / (uint64_t)vertices;
    uint64_t b = sources;
    b = b < by_memory ? b : by_memory;
    b = b < by_cap ? b : by_cap;
    b = b < by_index ? b : by_index;
    char one[32], graph_text[32], memory_text[32];
    if (b == 0 || edges >= UINT32_MAX)
        return fail(error, APSP_ERR_TOO_LARGE,
                    "%s: chosen sources over V = %zu, E = %zu need %s for one source beside the "
                    "graph's %s, more than %s%s",
                    d->name, vertices, edges, format_bytes(per, one, sizeof one),
                    format_bytes(graph, graph_text, sizeof graph_text),
                    format_bytes(memory, memory_text, sizeof memory_text), source);
    *batch = (size_t)b;
    char what[128];
    snprintf(what, sizeof what, "chosen sources: the graph and %zu sources of V = %zu", *batch,
             vertices);
    return layout_check_host_room(d, graph + b * per + 2 * (64u << 20), DRIVER_SOLVE_BYTES, what,
                                  error);
}

static apsp_status create(backend_device *d, cl_mem *mem, uint64_t bytes, const char *name,
                          apsp_error *error) {
    cl_int err;
    *mem = FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_WRITE,
                                                (size_t)(bytes ? bytes : 4), NULL, &err));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(%s)", name);
}

static apsp_status write(backend_device *d, cl_mem mem, const void *host, size_t bytes,
                         const char *name, apsp_error *error) {
    cl_int err = FAULT_CL_STATUS(
        clEnqueueWriteBuffer(d->queue, mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueWriteBuffer(%s)", name);
}

/* The out-edges as the kernels take them: uint offsets, int targets and weights (the int32 rule
 * holds). */
static apsp_status upload_graph(backend_device *d, const adjacency *g, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    size_t v = g->vertices, e = g->start[v];
    cl_uint *offsets = apsp_malloc((v + 1) * sizeof *offsets);
    cl_int *weights = apsp_malloc((e ? e : 1) * sizeof *weights);
    apsp_status status = APSP_OK;
    if (!offsets || !weights)
        status = fail(error, APSP_ERR_NO_MEMORY, "chosen sources: out of memory for %zu edges", e);
    for (size_t u = 0; status == APSP_OK && u <= v; u++)
        offsets[u] = (cl_uint)g->start[u];
    double sum = 0.0;
    int negative = 0;
    for (size_t i = 0; status == APSP_OK && i < e; i++) {
        weights[i] = (cl_int)g->weight[i];
        sum += (double)weights[i];
        negative |= weights[i] < 0;
    }
    double delta = e ? SSSP_DELTA_PER_MEAN_WEIGHT * sum / (double)e : 1.0;
    s->delta = negative ? APSP_INF : delta < 1.0 ? 1 : delta > APSP_INF ? APSP_INF : (cl_int)delta;
    if (status == APSP_OK)
        status = create(d, &s->offsets, 4 * (uint64_t)(v + 1), "CSR offsets", error);
    if (status == APSP_OK)
        status = create(d, &s->targets, 4 * (uint64_t)e, "CSR targets", error);
    if (status == APSP_OK)
        status = create(d, &s->weights, 4 * (uint64_t)e, "CSR weights", error);
    if (status == APSP_OK)
        status = write(d, s->offsets, offsets, (v + 1) * 4, "CSR offsets", error);
    if (status == APSP_OK && e)
        status = write(d, s->targets, g->other, e * 4, "CSR targets", error);
    if (status == APSP_OK && e)
        status = write(d, s->weights, weights, e * 4, "CSR weights", error);
    free(offsets);
    free(weights);
    return status;
}

static apsp_status create_batch(backend_device *d, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    uint64_t pairs = (uint64_t)s->batch * s->vertices;
    apsp_status status = create(d, &s->dist, 4 * pairs, "distances", error);
    if (status == APSP_OK)
        status = create(d, &s->queued, (pairs + 31) / 32 * 4, "queued bits", error);
    for (int k = 0; k < 2 && status == APSP_OK; k++)
        status = create(d, &s->frontier[k], 4 * pairs, "frontier", error);
    for (int k = 0; k < 2 && status == APSP_OK; k++)
        status = create(d, &s->far[k], 4 * pairs, "far list", error);
    if (status == APSP_OK)
        status = create(d, &s->counters, 3 * 4, "frontier sizes", error);
    if (status == APSP_OK)
        status = create(d, &s->flags, FLAG_COUNT * 4, "flags", error);
    if (status == APSP_OK)
        status = create(d, &s->sources, 4 * (uint64_t)s->batch, "sources", error);
    const cl_uint zero[FLAG_COUNT] = {0};
    if (status == APSP_OK)
        status = write(d, s->flags, zero, sizeof zero, "flags", error);
    return status;
}

static void sssp_release(backend_device *d, sources_device_times *times) {
    cl_sssp *s = &d->sssp;
    if (d->queue)
        clFinish(d->queue);
    cl_uint flags[3] = {0, 0, 0}; /* the first three of FLAG_COUNT */
    if (s->flags && clEnqueueReadBuffer(d->queue, s->flags, CL_TRUE, 0, sizeof flags, flags, 0,
                                        NULL, NULL) == CL_SUCCESS)
        s->times.pairs = (size_t)((uint64_t)flags[2] << 32 | flags[1]);
    if (times)
        *times = s->times;
    cl_mem *mems[] = {&s->offsets, &s->targets,     &s->weights,     &s->dist,
                      &s->queued,  &s->frontier[0], &s->frontier[1], &s->far[0],
                      &s->far[1],  &s->counters,    &s->flags,       &s->sources};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]), *mems[i] = NULL;
    s->times = (sources_device_times){0};
}

static apsp_status sssp_prepare(backend_device *d, const adjacency *g, size_t sources,
                                size_t *batch, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    sssp_release(d, NULL); /* a failed run's leftovers */
    double start = seconds_now();
    s->vertices = g->vertices;
    s->edges = g->start[g->vertices];
    cl_uint units = 1;
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    s->groups =
        (units ? units : 1) *
        (size_t)(d->limits.type & CL_DEVICE_TYPE_GPU ? ITEMS_PER_GPU_UNIT : ITEMS_PER_CPU_UNIT);
    apsp_status status = plan_batch(d, s->vertices, s->edges, sources, &s->batch, error);
    if (status == APSP_OK)
        status = build_kernels(d, error);
    if (status == APSP_OK)
        plan_groups(d);
    if (status == APSP_OK)
        status = upload_graph(d, g, error);
    if (status == APSP_OK)
        status = create_batch(d, error);
    s->times.upload += seconds_now() - start;
    *batch = s->batch;
    return status;
}

/* `items` work-items in groups of `group_items` (0: the driver's choice). */
static apsp_status enqueue(backend_device *d, cl_kernel kernel, const char *name, size_t items,
                           size_t group_items, cl_event *event, apsp_error *error) {
    cl_int err = FAULT_CL_STATUS(clEnqueueNDRangeKernel(
        d->queue, kernel, 1, NULL, &items, group_items ? &group_items : NULL, 0, NULL, event));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueNDRangeKernel(%s)", name);
}

/* The block INF, no pair queued, the sources at 0 and in the first frontier. */
static apsp_status start_batch(backend_device *d, const int32_t *sources, size_t count,
                               apsp_error *error) {
    cl_sssp *s = &d->sssp;
    cl_uint pairs = (cl_uint)(count * s->vertices), inf = APSP_INF, zero = 0, n = (cl_uint)count,
            v = (cl_uint)s->vertices;
    cl_int delta = s->delta;
    cl_int err = FAULT_CL_STATUS(clEnqueueFillBuffer(d->queue, s->dist, &inf, sizeof inf, 0,
                                                     (size_t)pairs * 4, 0, NULL, NULL));
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clEnqueueFillBuffer(d->queue, s->queued, &zero, sizeof zero, 0,
                                                  ((size_t)pairs + 31) / 32 * 4, 0, NULL, NULL));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueFillBuffer(distances)");
    apsp_status status = write(d, s->sources, sources, count * 4, "sources", error);
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
 * queued bits, (frontier), next frontier, counters, flags; and their last two, the stage (local
 * memory for both lists, a word where there is none) and its capacity. */
static apsp_status set_graph_args(backend_device *d, cl_kernel k, const char *name, cl_uint first,
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

static apsp_status queue_round(backend_device *d, size_t round, cl_event *event,
                               apsp_error *error) {
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
static apsp_status queue_sweep(backend_device *d, size_t round, cl_event *event,
                               apsp_error *error) {
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
static apsp_status read_state(backend_device *d, size_t round, cl_uint *size, cl_uint *floor_hit,
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
static apsp_status run_rounds(backend_device *d, int *cycle, apsp_error *error) {
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

static apsp_status sssp_solve(backend_device *d, const int32_t *sources, size_t count, int *cycle,
                              apsp_error *error) {
    cl_sssp *s = &d->sssp;
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
    s->times.rounds += seconds_now() - started;
    return status;
}

static apsp_status read_rows(backend_device *d, row_batches *b, int k, size_t row, size_t count,
                             apsp_error *error) {
    cl_sssp *s = &d->sssp;
    size_t row_bytes = s->vertices * 4;
    if (b->ready[k])
        clReleaseEvent(b->ready[k]), b->ready[k] = NULL;
    cl_int err =
        FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, s->dist, CL_FALSE, row * row_bytes,
                                            count * row_bytes, b->host[k], 0, NULL, &b->ready[k]));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueReadBuffer(source rows %zu)", row);
}

/* The batch's rows down through two pinned batches: the next one comes while the caller takes
 * the last. */
static apsp_status sssp_store_rows(backend_device *d, size_t first, apsp_rows_fn rows,
                                   void *context, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    double start = seconds_now();
    row_batches b = {0};
    apsp_status status = row_batches_map(d, &b, s->vertices * 4, error);
    size_t last_row = 0, last_count = 0;
    int k = 0;
    for (size_t row = 0; row < s->count && status == APSP_OK; k ^= 1) {
        size_t count = s->count - row < b.rows ? s->count - row : b.rows;
        status = read_rows(d, &b, k, row, count, error);
        if (status == APSP_OK && last_count)
            status = row_batches_hand_on(&b, k ^ 1, first + last_row, last_count, s->vertices, rows,
                                         context, error);
        last_row = row, last_count = count;
        row += count;
    }
    if (status == APSP_OK && last_count)
        status = row_batches_hand_on(&b, k ^ 1, first + last_row, last_count, s->vertices, rows,
                                     context, error);
    row_batches_unmap(d, &b);
    s->times.download += seconds_now() - start;
    return status;
}

const backend_sources opencl_sources = {
    .rate = sssp_rate,
    .prepare = sssp_prepare,
    .solve = sssp_solve,
    .store_rows = sssp_store_rows,
    .release = sssp_release,
};
