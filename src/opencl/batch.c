/* A batch's small graphs on an OpenCL device (backend.h: backend_graphs): cl/batch.cl, one
 * work-group per graph solving it in local memory, every graph of a chunk in one launch. A
 * chunk's index (each graph's first cell, size, form and edges) goes up in one write from a
 * pinned staging slot, then its edges and weights (the kernel makes the cells) or its packed
 * cells, and the cells come down in one read into the slot; all queued without waiting, so that
 * the host works on other slots meanwhile. One program per element type, built at its first use
 * (or taken from the kernel cache), and the slots, kept with the device. */
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"
#include "opencl/device.h"
#include "opencl/params.h"
#include "base/element_types.h"

#include <stdio.h>
#include <string.h>

/* Work-items per group: a 60-vertex graph's 3600 cells are 14 per item per step, and a group
 * this size fits every device's CL_DEVICE_MAX_WORK_GROUP_SIZE that can run the other kernels.
 * Graphs above MOST_VERTICES go to the blocked solver even where local memory would hold them:
 * one work-group's n^3 steps on a large graph leave the rest of the device idle. */
enum { GROUP_ITEMS = 128, MOST_VERTICES = 128 };

/* A slot's room for edges: one per EDGE_SHARE bytes of cells (10 bytes an edge with its weight:
 * a third more pinned memory). A molecule's 1.1 V edges beside its V^2 cells take far less; a
 * graph with more edges than a slot holds has its cells made on the host. */
enum { EDGE_SHARE = 32 };

/* Local memory a graph of n vertices takes: its cells and the copies of row and column k. */
static uint64_t local_bytes(size_t n, size_t cell) {
    return ((uint64_t)n * n + 2 * (uint64_t)n) * cell;
}

size_t batch_most_vertices(backend_device *device, apsp_dtype dtype) {
    cl_device *d = cl_device_of(device);
    const size_t cell = apsp_dtype_size(dtype);
    if (!cell || (dtype == APSP_FLOAT64 && !d->limits.fp64) ||
        d->limits.max_work_group < GROUP_ITEMS)
        return 0;
    /* A float graph above the tile would take several rounds of the blocked solve, whose sums
     * round otherwise than one round's (cl/batch.cl): those go alone. */
    const int rounded = element_is_real(dtype);
    size_t n =
        rounded && (size_t)d->chosen.tile < MOST_VERTICES ? (size_t)d->chosen.tile : MOST_VERTICES;
    while (n && local_bytes(n, cell) > d->limits.local_memory)
        n--;
    return n;
}

static apsp_status batch_kernel(cl_device *d, apsp_dtype dtype, cl_kernel *kernel,
                                apsp_error *error) {
    const int t = (int)dtype;
    if (d->batch_kernel[t]) {
        *kernel = d->batch_kernel[t];
        return APSP_OK;
    }
    char options[128];
    apsp_status status = program_side(d, "batch.cl", dtype_defines(dtype, options, sizeof options),
                                      &d->batch_program[t], error);
    if (status != APSP_OK)
        return status;
    cl_int err;
    d->batch_kernel[t] =
        FAULT_CL_OBJECT(&err, clCreateKernel(d->batch_program[t], "batch_fw", &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_KERNEL_BUILD, err, "clCreateKernel(batch_fw)");
    *kernel = d->batch_kernel[t];
    return APSP_OK;
}

/* Slot s's chunk on the device waited for and its events released; their device time added
 * to the times where the queue has a profile (CL_PROFILING_INFO_NOT_AVAILABLE otherwise). */
static cl_int slot_wait(cl_batch_slot *b, graphs_times *times) {
    cl_int err = b->events[2] ? FAULT_CL_STATUS(clWaitForEvents(1, &b->events[2])) : CL_SUCCESS;
    double *part[3] = {&times->upload, &times->kernels, &times->download};
    for (size_t e = 0; e < 3; e++) {
        cl_ulong begin, end;
        if (!b->events[e])
            continue;
        if (err == CL_SUCCESS &&
            clGetEventProfilingInfo(b->events[e], CL_PROFILING_COMMAND_START, sizeof begin, &begin,
                                    NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(b->events[e], CL_PROFILING_COMMAND_END, sizeof end, &end,
                                    NULL) == CL_SUCCESS)
            *part[e] += (double)(end - begin) * 1e-9;
        clReleaseEvent(b->events[e]);
        b->events[e] = NULL;
    }
    return err;
}

static void stage_release(cl_device *d) {
    cl_batch_stage *st = &d->batch_stage;
    graphs_times ignored;
    if (d->queue)
        clFinish(d->queue);
    for (size_t s = 0; s < GRAPHS_SLOTS; s++) {
        cl_batch_slot *b = &st->slot[s];
        slot_wait(b, &ignored);
        if (b->host)
            clEnqueueUnmapMemObject(d->queue, b->pinned, b->host, 0, NULL, NULL);
        cl_mem all[] = {b->pinned, b->index, b->cells, b->edges, b->weights};
        for (size_t m = 0; m < 5; m++)
            if (all[m])
                clReleaseMemObject(all[m]);
    }
    if (d->queue)
        clFinish(d->queue);
    memset(st, 0, sizeof *st);
}

void batch_release(cl_device *d) {
    stage_release(d);
    for (size_t t = 0; t < BATCH_DTYPES; t++) {
        if (d->batch_kernel[t])
            clReleaseKernel(d->batch_kernel[t]);
        if (d->batch_program[t])
            clReleaseProgram(d->batch_program[t]);
        d->batch_kernel[t] = NULL;
        d->batch_program[t] = NULL;
    }
}

/* A buffer of `bytes` on the device, or pinned on the host (CL_MEM_ALLOC_HOST_PTR: NVIDIA's
 * driver backs it with page-locked memory, whose transfers run at the bus's speed). */
static apsp_status buffer(cl_device *d, cl_mem *out, size_t bytes, int pinned, apsp_error *error) {
    cl_int err;
    const cl_mem_flags flags = CL_MEM_READ_WRITE | (pinned ? CL_MEM_ALLOC_HOST_PTR : 0);
    *out = FAULT_CL_OBJECT(&err, clCreateBuffer(d->context, flags, bytes ? bytes : 1, NULL, &err));
    return err == CL_SUCCESS
               ? APSP_OK
               : cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(batch %s, %zu bytes) on %s",
                         pinned ? "staging" : "chunk", bytes, d->name);
}

/* Bytes rounded up to 64 (each region of a slot's pinned buffer starts at such a boundary). */
static size_t aligned(size_t bytes) {
    return (bytes + 63) / 64 * 64;
}

/* A slot: its pinned buffer mapped (the index, the cells, the edges, the weights) and its device
 * buffers. */
static apsp_status slot_make(cl_device *d, size_t s, apsp_error *error) {
    cl_batch_stage *st = &d->batch_stage;
    cl_batch_slot *b = &st->slot[s];
    const size_t index = aligned(4 * st->view.graphs * sizeof(uint32_t));
    const size_t cells = aligned(st->view.bytes), edges = aligned(2 * st->view.edges);
    const size_t weights = 8 * st->view.edges, all = index + cells + edges + weights;
    apsp_status status = buffer(d, &b->pinned, all, 1, error);
    if (status == APSP_OK)
        status = buffer(d, &b->index, index, 0, error);
    if (status == APSP_OK)
        status = buffer(d, &b->cells, cells, 0, error);
    if (status == APSP_OK)
        status = buffer(d, &b->edges, edges, 0, error);
    if (status == APSP_OK)
        status = buffer(d, &b->weights, weights, 0, error);
    if (status != APSP_OK)
        return status;
    cl_int err;
    b->host = FAULT_CL_OBJECT(&err, clEnqueueMapBuffer(d->queue, b->pinned, CL_TRUE,
                                                       CL_MAP_READ | CL_MAP_WRITE, 0, all, 0, NULL,
                                                       NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueMapBuffer(batch staging) on %s",
                       d->name);
    char *host = b->host;
    st->view.slot[s] = (graphs_slot){.index = b->host,
                                     .cells = host + index,
                                     .edges = (uint16_t *)(host + index + cells),
                                     .weights = host + index + cells + edges};
    return APSP_OK;
}

/* A slot's bytes of cells: the driver's wish, under a device memory cap at most a sixth of it
 * (the slots' device buffers, and room for the rest); never less than a graph of the most
 * vertices takes. */
static size_t slot_bytes(backend_device *device, apsp_dtype dtype, size_t bytes) {
    const cl_device *d = cl_device_of(device);
    const size_t cell = apsp_dtype_size(dtype), most = batch_most_vertices(device, dtype);
    const uint64_t cap = d->options->device_memory / (2 * GRAPHS_SLOTS);
    if (cap && cap < bytes)
        bytes = (size_t)cap;
    bytes = bytes / cell * cell;
    return bytes > most * most * cell ? bytes : most * most * cell;
}

apsp_status batch_stage(backend_device *device, apsp_dtype dtype, size_t bytes, size_t graphs,
                        graphs_stage **out, graphs_times *times, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_batch_stage *st = &d->batch_stage;
    cl_kernel kernel = NULL;
    const double at = seconds_now();
    apsp_status status = batch_kernel(d, dtype, &kernel, error);
    times->setup += seconds_now() - at;
    if (status != APSP_OK)
        return status;
    bytes = slot_bytes(device, dtype, bytes);
    *out = &st->view;
    if (st->view.bytes >= bytes && st->view.graphs >= graphs)
        return APSP_OK;
    stage_release(d);
    st->view.bytes = bytes;
    st->view.graphs = graphs;
    st->view.edges = bytes / EDGE_SHARE;
    for (size_t s = 0; s < GRAPHS_SLOTS && status == APSP_OK; s++)
        status = slot_make(d, s, error);
    if (status != APSP_OK)
        stage_release(d);
    return status;
}

/* The launch over the chunk's graphs, local memory for its largest. */
static cl_int launch(cl_device *d, cl_kernel kernel, cl_batch_slot *b, const graphs_slot *v,
                     apsp_dtype dtype) {
    const size_t local = local_bytes(v->most, apsp_dtype_size(dtype));
    const cl_uint form =
        (v->from_edges ? 1u : 0u) | (v->undirected ? 2u : 0u) | (v->unweighted ? 4u : 0u);
    cl_int err = clSetKernelArg(kernel, 0, sizeof(cl_mem), &b->cells);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof(cl_mem), &b->index);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 2, local ? local : 1, NULL);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 3, sizeof(cl_mem), &b->edges);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 4, sizeof(cl_mem), &b->weights);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 5, sizeof form, &form);
    const size_t group = GROUP_ITEMS, global = v->count * GROUP_ITEMS;
    return err == CL_SUCCESS
               ? FAULT_CL_STATUS(clEnqueueNDRangeKernel(d->queue, kernel, 1, NULL, &global, &group,
                                                        0, NULL, &b->events[1]))
               : err;
}

/* A write of `bytes` from the slot's pinned memory, queued (its event: the chunk's upload). */
static cl_int write_up(cl_device *d, cl_mem buffer, size_t bytes, const void *host,
                       cl_event *event) {
    if (!bytes)
        return CL_SUCCESS;
    if (*event)
        clReleaseEvent(*event), *event = NULL;
    return FAULT_CL_STATUS(
        clEnqueueWriteBuffer(d->queue, buffer, CL_FALSE, 0, bytes, host, 0, NULL, event));
}

/* The chunk's index, and its cells or its edges and weights, queued up. */
static cl_int upload(cl_device *d, cl_batch_slot *b, const graphs_slot *v, size_t cell) {
    cl_int err = write_up(d, b->index, 4 * v->count * sizeof(uint32_t), v->index, &b->events[0]);
    if (err == CL_SUCCESS && !v->from_edges)
        err = write_up(d, b->cells, v->cells_count * cell, v->cells, &b->events[0]);
    if (err == CL_SUCCESS && v->from_edges)
        err = write_up(d, b->edges, v->edges_count * sizeof(uint16_t), v->edges, &b->events[0]);
    if (err == CL_SUCCESS && v->from_edges && !v->unweighted)
        err = write_up(d, b->weights, v->edges_count * cell, v->weights, &b->events[0]);
    return err;
}

apsp_status batch_start(backend_device *device, size_t s, apsp_dtype dtype, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    cl_batch_slot *b = &d->batch_stage.slot[s];
    const graphs_slot *v = &d->batch_stage.view.slot[s];
    const size_t bytes = v->cells_count * apsp_dtype_size(dtype);
    if (bytes == 0)
        return APSP_OK; /* (only empty graphs: nothing for the device) */
    cl_int err = upload(d, b, v, apsp_dtype_size(dtype));
    if (err == CL_SUCCESS)
        err = launch(d, d->batch_kernel[dtype], b, v, dtype);
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clEnqueueReadBuffer(d->queue, b->cells, CL_FALSE, 0, bytes, v->cells,
                                                  0, NULL, &b->events[2]));
    if (err == CL_SUCCESS)
        err = FAULT_CL_STATUS(clFlush(d->queue));
    if (err == CL_SUCCESS)
        return APSP_OK;
    graphs_times ignored;
    clFinish(d->queue); /* (what was queued may still use the slot) */
    slot_wait(b, &ignored);
    return cl_fail(error, APSP_ERR_DEVICE, err, "batch_fw over %zu graphs on %s", v->count,
                   d->name);
}

apsp_status batch_finish(backend_device *device, size_t s, graphs_times *times, apsp_error *error) {
    cl_device *d = cl_device_of(device);
    const double at = seconds_now();
    const cl_int err = slot_wait(&d->batch_stage.slot[s], times);
    times->wait += seconds_now() - at;
    return err == CL_SUCCESS ? APSP_OK
                             : cl_fail(error, APSP_ERR_DEVICE, err,
                                       "batch_fw over %zu graphs on %s (the chunk's download)",
                                       d->batch_stage.view.slot[s].count, d->name);
}
