/* Chosen sources on an OpenCL device, the set-up of a run (sssp_setup.h): the batch sized to the
 * device's memory, the program built with its append form, the work-groups planned, the graph's
 * CSR uploaded and the batch's buffers made. sssp.c runs the rounds on them. */
#include "base/element_types.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/group.h"
#include "base/log.h"
#include "base/parallel.h"
#include "base/util.h"
#include "opencl/device.h"
#include "opencl/sssp_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bucket width of delta-stepping: this many times the mean weight. On an H200, 1000 sources
 * of the 1000 x 1000 grid (compute_s, two runs each): 0.5 (with three kernels a round) 2.42 s,
 * 1 1.45 s, 1.5 1.47 s, 2 1.43 s, 3 1.55 s; wider buckets take fewer rounds and more pairs. */
#define SSSP_DELTA_PER_MEAN_WEIGHT 2.0

/* Keys to a bucket of delta-stepping for the types whose key is a scaled distance (cl/sssp.cl:
 * key_of): fine enough that a bucket's edge falls within a key of where int32's would. */
#define SSSP_KEYS_PER_BUCKET 256.0

/* The share of the memory a batch may take. */
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
static int stages_appends(const cl_device *d) {
    return SSSP_APPEND_LOCAL && !(d->limits.type & CL_DEVICE_TYPE_CPU);
}

/* 1: the 64-bit cells take cl/sssp.cl's compare-and-swap loop even where the device has
 * atom_min on long, so that a GPU can time one against the other from two builds
 * (-Dc_args=-DSSSP_FORCE_CAS=1); a test forces it through APSP_KERNEL_DIR instead
 * (tests/sssp/test_sssp_device_types.py). */
#ifndef SSSP_FORCE_CAS
#define SSSP_FORCE_CAS 0
#endif

/* cl/sssp.cl's DIST_KIND for the rows' type: the order of apsp_dtype. */
static int dist_kind(apsp_dtype dtype) {
    return dtype == APSP_INT64 ? 1 : dtype == APSP_FLOAT32 ? 2 : dtype == APSP_FLOAT64 ? 3 : 0;
}

/* The program for the run's type (another type's, kept from an earlier run, is let go). */
static apsp_status build_kernels(cl_device *d, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    int kind = dist_kind(s->run.dtype);
    if (s->program && s->program_kind != kind)
        sssp_release_program(d);
    if (s->pred)
        return APSP_OK;
    char options[80];
    snprintf(options, sizeof options, "-DAPPEND_LOCAL=%d -DDIST_KIND=%d%s", stages_appends(d), kind,
             SSSP_FORCE_CAS ? " -DSSSP_FORCE_CAS" : "");
    apsp_status status =
        s->program ? APSP_OK : program_side(d, "sssp.cl", options, &s->program, error);
    s->program_kind = kind;
    const char *names[] = {"sssp_start", "sssp_relax", "sssp_sweep", "sssp_pred"};
    cl_kernel *kernels[] = {&s->start, &s->relax, &s->sweep, &s->pred};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && status == APSP_OK; i++) {
        cl_int err;
        *kernels[i] = FAULT_CL_OBJECT(&err, clCreateKernel(s->program, names[i], &err));
        if (err != CL_SUCCESS)
            status = cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(%s)", names[i]);
    }
    return status;
}

/* What a kernel allows of the work-group size and the local memory its stage may take. */
static void kernel_room(cl_device *d, cl_kernel kernel, size_t *items, cl_ulong *local) {
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
static void plan_groups(cl_device *d) {
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

/* The block's row, the frontiers' and far lists' 16 V (a pair is in one of them at most once;
 * the predecessors come down through a frontier), the queued bits and the source. */
static uint64_t bytes_per_source(size_t vertices, size_t cell) {
    return (16 + (uint64_t)cell) * vertices + (vertices + 31) / 32 * 4 + 4;
}

/* The CSR's bytes: out-edges, and in-edges too for the predecessors. */
static uint64_t graph_bytes(const cl_sssp *s, size_t vertices, size_t edges) {
    uint64_t one = 4 * (uint64_t)(vertices + 1) + (4 + (uint64_t)s->cell) * edges;
    return (s->run.pred ? 2 : 1) * one + 64;
}

/* The sources of a batch: what fits, at least one (else APSP_ERR_TOO_LARGE), at most `sources`. */
static apsp_status plan_batch(cl_device *d, size_t vertices, size_t edges, size_t sources,
                              size_t *batch, apsp_error *error) {
    const char *source;
    uint64_t memory = (uint64_t)(SSSP_MEMORY_SHARE * (double)layout_memory(d, &source));
    uint64_t graph = graph_bytes(&d->sssp, vertices, edges);
    uint64_t per = bytes_per_source(vertices, d->sssp.cell);
    uint64_t row = d->sssp.cell * (uint64_t)vertices;
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

static apsp_status create(cl_device *d, cl_mem *mem, uint64_t bytes, const char *name,
                          apsp_error *error) {
    cl_int err;
    *mem = FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, CL_MEM_READ_WRITE,
                                                (size_t)(bytes ? bytes : 4), NULL, &err));
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(%s)", name);
}

apsp_status sssp_write(cl_device *d, cl_mem mem, const void *host, size_t bytes, const char *name,
                       apsp_error *error) {
    cl_int err = FAULT_CL_STATUS(
        clEnqueueWriteBuffer(d->queue, mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueWriteBuffer(%s)", name);
}

/* delta-stepping's bucket width from the mean weight (none negative; else APSP_INF, plain
 * rounds): int32's in distances, the others' SSSP_KEYS_PER_BUCKET keys of key_scale a unit. */
static void plan_buckets(cl_sssp *s, const adjacency *g) {
    size_t e = g->start[g->vertices];
    double sum = 0.0;
    int negative = 0;
    for (size_t i = 0; i < e; i++) {
        double w = g->real ? g->real[i] : (double)g->weight[i];
        sum += w;
        negative |= w < 0;
    }
    double delta = e ? SSSP_DELTA_PER_MEAN_WEIGHT * sum / (double)e : 1.0;
    s->key_scale = 1.0f;
    if (s->run.dtype != APSP_INT32) {
        double scale = delta > 0 ? SSSP_KEYS_PER_BUCKET / delta : 1.0;
        s->key_scale = (cl_float)(scale < 1e30 ? scale : 1e30); /* finite: no 0 x inf key */
        delta = SSSP_KEYS_PER_BUCKET;
    }
    s->delta = negative ? APSP_INF : delta < 1.0 ? 1 : delta > APSP_INF ? APSP_INF : (cl_int)delta;
}

/* The weights of a CSR being made (upload_csr), converted on the host's threads. */
typedef struct csr_weights {
    const adjacency *g;
    const size_t *order; /* edge order[i] of g is the CSR's i-th (NULL: i) */
    apsp_dtype dtype;
    size_t cell;
    char *weights;
} csr_weights;

static int convert_weights(void *context, size_t begin, size_t end) {
    const csr_weights *w = context;
    for (size_t i = begin; i < end; i++)
        element_weight_as(w->g->weight, w->g->real, w->order ? w->order[i] : i, w->dtype,
                          w->weights + i * w->cell);
    return 0;
}

/* One CSR as the kernels take it: uint offsets of `start`, int `other` ends and the weights of
 * edges `order[i]` (or i) of g in the run's type. */
static apsp_status upload_csr(cl_device *d, const adjacency *g, const size_t *start,
                              const int32_t *other, const size_t *order, cl_mem mems[3],
                              apsp_error *error) {
    cl_sssp *s = &d->sssp;
    size_t v = g->vertices, e = g->start[v];
    cl_uint *offsets = apsp_malloc((v + 1) * sizeof *offsets);
    char *weights = apsp_malloc((e ? e : 1) * s->cell);
    apsp_status status = APSP_OK;
    if (!offsets || !weights)
        status = fail(error, APSP_ERR_NO_MEMORY, "chosen sources: out of memory for %zu edges", e);
    for (size_t u = 0; status == APSP_OK && u <= v; u++)
        offsets[u] = (cl_uint)start[u];
    csr_weights w = {g, order, s->run.dtype, s->cell, weights};
    if (status == APSP_OK)
        (void)parallel_slices(e, threads_for_bytes(e * s->cell, threads_of(d->options->threads)),
                              convert_weights, &w);
    const char *names[] = {"CSR offsets", "CSR ends", "CSR weights"};
    const void *hosts[] = {offsets, other, weights};
    uint64_t bytes[] = {4 * (uint64_t)(v + 1), 4 * (uint64_t)e, s->cell * (uint64_t)e};
    for (int k = 0; k < 3 && status == APSP_OK; k++) {
        status = create(d, &mems[k], bytes[k], names[k], error);
        if (status == APSP_OK && bytes[k])
            status = sssp_write(d, mems[k], hosts[k], (size_t)bytes[k], names[k], error);
    }
    free(offsets);
    free(weights);
    return status;
}

/* The in-edges being built (upload_in_edges). */
typedef struct in_edges {
    const adjacency *g;
    const size_t *order; /* per slot: the out-edge's index in g (its weight) */
    int32_t *source;     /* per slot: its tail u */
} in_edges;

static int64_t target_of(const void *context, size_t edge) {
    return ((const in_edges *)context)->g->other[edge];
}

/* The tail u of out-edge i: the last u whose edges start at or before i. */
static int32_t tail_of(const adjacency *g, size_t i) {
    size_t low = 0, high = g->vertices; /* start[low] <= i < start[high] */
    while (high - low > 1) {
        size_t mid = low + (high - low) / 2;
        if (g->start[mid] <= i)
            low = mid;
        else
            high = mid;
    }
    return (int32_t)low;
}

static int fill_tails(void *context, size_t begin, size_t end) {
    const in_edges *x = context;
    for (size_t slot = begin; slot < end; slot++)
        x->source[slot] = tail_of(x->g, x->order[slot]);
    return 0;
}

/* The in-edges for the predecessors: by target, each vertex's by increasing index among the
 * out-edges, which is by increasing tail u (the out-edges come by u): the order the kernel's
 * "least tight u" rule takes them in; each with that index for its weight. Grouped on the
 * host's threads (one thread took 0.2 s for a million vertices' 4 million edges). */
static apsp_status upload_in_edges(cl_device *d, const adjacency *g, apsp_error *error) {
    size_t v = g->vertices, e = g->start[v];
    unsigned threads = threads_of(d->options->threads);
    size_t *start = apsp_malloc((v + 1) * sizeof *start);
    size_t *order = apsp_malloc((e ? e : 1) * sizeof *order);
    in_edges x = {g, order, apsp_malloc((e ? e : 1) * sizeof *x.source)};
    apsp_status status = APSP_OK;
    if (!start || !order || !x.source || group_by_key(e, v, target_of, &x, threads, start, order))
        status = fail(error, APSP_ERR_NO_MEMORY, "chosen sources: out of memory for %zu edges", e);
    if (status == APSP_OK)
        (void)parallel_slices(e, threads_for_bytes(e * sizeof *order, threads), fill_tails, &x);
    cl_sssp *s = &d->sssp;
    cl_mem mems[3] = {NULL, NULL, NULL};
    if (status == APSP_OK)
        status = upload_csr(d, g, start, x.source, order, mems, error);
    s->in_start = mems[0], s->in_source = mems[1], s->in_weight = mems[2];
    free(start);
    free(order);
    free(x.source);
    return status;
}

/* The out-edges, and the in-edges when the run picks predecessors. */
static apsp_status upload_graph(cl_device *d, const adjacency *g, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    plan_buckets(s, g);
    cl_mem mems[3] = {NULL, NULL, NULL};
    apsp_status status = upload_csr(d, g, g->start, g->other, NULL, mems, error);
    s->offsets = mems[0], s->targets = mems[1], s->weights = mems[2];
    if (status == APSP_OK && s->run.pred)
        status = upload_in_edges(d, g, error);
    return status;
}

static apsp_status create_batch(cl_device *d, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    uint64_t pairs = (uint64_t)s->batch * s->vertices;
    apsp_status status = create(d, &s->dist, s->cell * pairs, "distances", error);
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
        status = sssp_write(d, s->flags, zero, sizeof zero, "flags", error);
    return status;
}

apsp_status sssp_setup(cl_device *d, const adjacency *g, size_t sources, apsp_error *error) {
    cl_sssp *s = &d->sssp;
    apsp_status status = plan_batch(d, s->vertices, s->edges, sources, &s->batch, error);
    if (status == APSP_OK)
        status = build_kernels(d, error);
    if (status == APSP_OK)
        plan_groups(d);
    if (status == APSP_OK)
        status = upload_graph(d, g, error);
    if (status == APSP_OK)
        status = create_batch(d, error);
    return status;
}
