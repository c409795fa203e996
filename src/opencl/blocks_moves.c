/* The GPU engine's traffic with the host (blocks.h): pinned panel memory, the panels taken
 * in on the copy queue while the kernels run, the outputs read out for MPI, and the profile. */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/util.h"
#include "opencl/blocks.h"

#include <stdlib.h>

enum { B = BLOCK_SIDE };

int engine_failed(block_engine *e, cl_int err, const char *what) {
    if (err == CL_SUCCESS)
        return 0;
    if (e->status == APSP_OK)
        e->status = cl_fail(&e->error, APSP_ERR_DEVICE, err, "%s on %s", what, e->d->name);
    return 1;
}

/* ---- the profile ------------------------------------------------------------------------------
 */

cl_event *profile_slot(block_engine *e, int kind) {
    engine_profile *p = &e->profile;
    if (!e->options.profile || kind == PROF_NONE)
        return NULL;
    return cl_event_slot(&p->events, &p->kinds, &p->count, &p->capacity, kind);
}

void profile_collect(block_engine *e, int all) {
    engine_profile *p = &e->profile;
    size_t kept = 0;
    for (size_t i = 0; i < p->count; i++) {
        cl_int state = CL_COMPLETE;
        cl_ulong start = 0, end = 0;
        if (!p->events[i])
            continue; /* its command was never queued */
        if (!all && (clGetEventInfo(p->events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state,
                                    &state, NULL) != CL_SUCCESS ||
                     state > CL_COMPLETE)) {
            p->kinds[kept] = p->kinds[i];
            p->events[kept++] = p->events[i];
            continue;
        }
        if (clGetEventProfilingInfo(p->events[i], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(p->events[i], CL_PROFILING_COMMAND_END, sizeof end, &end,
                                    NULL) == CL_SUCCESS &&
            end > start)
            p->seconds[p->kinds[i]] += 1e-9 * (double)(end - start);
        clReleaseEvent(p->events[i]);
    }
    p->count = kept;
}

void profile_release(block_engine *e) {
    engine_profile *p = &e->profile;
    for (size_t i = 0; i < p->count; i++)
        if (p->events[i])
            clReleaseEvent(p->events[i]);
    free(p->events);
    free(p->kinds);
    *p = (engine_profile){0};
}

void engine_log_profile(block_engine *e, size_t rounds, double seconds) {
    engine_profile *p = &e->profile;
    const double ms = rounds ? 1e3 / (double)rounds : 0.0;
    apsp_backend_opencl.drain(&e->d->base);
    profile_collect(e, 1);
    double kernels = p->seconds[PROF_PHASE1] + p->seconds[PROF_PHASE2] + p->seconds[PROF_PHASE3] +
                     p->seconds[PROF_COPY];
    log_message(&e->options, APSP_LOG_INFO,
                "profile, ms a round over %zu rounds: rounds %.3f; device: phase 1 %.3f, phase 2 "
                "%.3f, phase 3 %.3f, copies on the device %.3f (kernel queue busy %.3f, idle "
                "%.3f); panels up %.3f (%.2f MB), outputs down %.3f (%.2f MB); host waits: for "
                "outputs %.3f, for phase 3 %.3f",
                rounds, seconds * ms, p->seconds[PROF_PHASE1] * ms, p->seconds[PROF_PHASE2] * ms,
                p->seconds[PROF_PHASE3] * ms, p->seconds[PROF_COPY] * ms, kernels * ms,
                (seconds - kernels) * ms, p->seconds[PROF_UP] * ms,
                rounds ? (double)p->up_bytes / (double)rounds / 1e6 : 0.0,
                p->seconds[PROF_DOWN] * ms,
                rounds ? (double)p->down_bytes / (double)rounds / 1e6 : 0.0, p->wait_outputs * ms,
                p->wait_relax * ms);
}

/* ---- transfers --------------------------------------------------------------------------------
 */

void move_rect(block_engine *e, cl_command_queue q, const rect_move *m, cl_bool wait,
               cl_event after, cl_event *done, int kind) {
    const size_t s = sizeof(int32_t);
    size_t origin[3] = {m->col * s, m->row, 0}, host_origin[3] = {0, 0, 0},
           region[3] = {m->cols * s, m->rows, 1};
    if (e->status != APSP_OK || m->rows == 0 || m->cols == 0)
        return;
    cl_event *event = done ? done : profile_slot(e, kind);
    cl_uint waits = after ? 1 : 0;
    const cl_event *list = after ? &after : NULL;
    cl_int err = m->up ? clEnqueueWriteBufferRect(q, m->buffer, wait, origin, host_origin, region,
                                                  m->buffer_pitch * s, 0, m->host_pitch * s, 0,
                                                  m->host, waits, list, event)
                       : clEnqueueReadBufferRect(q, m->buffer, wait, origin, host_origin, region,
                                                 m->buffer_pitch * s, 0, m->host_pitch * s, 0,
                                                 m->host, waits, list, event);
    if (engine_failed(e, FAULT_CL_STATUS(err),
                      m->up ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect"))
        return;
    if (kind == PROF_UP)
        e->profile.up_bytes += m->rows * m->cols * s;
    if (kind == PROF_DOWN)
        e->profile.down_bytes += m->rows * m->cols * s;
    cl_event *slot = done && e->options.profile ? profile_slot(e, kind) : NULL;
    if (slot && clRetainEvent(*done) == CL_SUCCESS)
        *slot = *done;
}

void transpose_on(block_engine *e, cl_command_queue q, cl_mem src, size_t src_offset,
                  size_t src_pitch, cl_mem dst, size_t dst_offset, size_t rows, int kind) {
    size_t edge = (size_t)copy_edge(&e->d->params);
    size_t local[2] = {edge, edge}, global[2] = {rows, B};
    cl_ulong so = src_offset, dof = dst_offset;
    cl_int sp = (cl_int)src_pitch, dp = (cl_int)e->w;
    if (e->status != APSP_OK || rows == 0)
        return;
    cl_int err = clSetKernelArg(e->transpose, 0, sizeof src, &src);
    err |= clSetKernelArg(e->transpose, 1, sizeof so, &so);
    err |= clSetKernelArg(e->transpose, 2, sizeof sp, &sp);
    err |= clSetKernelArg(e->transpose, 3, sizeof dst, &dst);
    err |= clSetKernelArg(e->transpose, 4, sizeof dof, &dof);
    err |= clSetKernelArg(e->transpose, 5, sizeof dp, &dp);
    if (!engine_failed(e, err, "clSetKernelArg(fw_transpose)"))
        engine_failed(e,
                      FAULT_CL_STATUS(clEnqueueNDRangeKernel(
                          q, e->transpose, 2, NULL, global, local, 0, NULL, profile_slot(e, kind))),
                      "fw_transpose");
}

/* The panels go up into pair turn ^ 1, whose last reader (the phase 3 of the round before the
 * one being relaxed) is done: each round ends in a wait for its phase 3. The column panel passes
 * through col_in, transposed on the copy queue too. A barrier makes the kernels queued after
 * this call wait for all of it. */
void take_in(block_engine *e, const int32_t *col_panel, const int32_t *row_panel) {
    const int next = e->turn ^ 1;
    cl_command_queue q = e->d->copy_queue;
    cl_event done = NULL;
    e->taken_in = 1;
    if (e->own_row && e->own_col)
        return;
    if (!e->own_row)
        move_rect(e, q,
                  &(rect_move){1, e->b[next], 0, 0, e->w, (void *)row_panel, e->cols, B, e->cols},
                  CL_FALSE, NULL, NULL, PROF_UP);
    if (!e->own_col) {
        move_rect(e, q, &(rect_move){1, e->col_in, 0, 0, B, (void *)col_panel, B, e->rows, B},
                  CL_FALSE, NULL, NULL, PROF_UP);
        transpose_on(e, q, e->col_in, 0, B, e->a[next], 0, e->rows, PROF_UP);
    }
    if (e->status != APSP_OK ||
        engine_failed(e, FAULT_CL_STATUS(clEnqueueMarkerWithWaitList(q, 0, NULL, &done)),
                      "clEnqueueMarkerWithWaitList"))
        return;
    /* No barrier behind a copy queue left unflushed: the kernels would wait for it forever. */
    if (!engine_failed(e, FAULT_CL_STATUS(clFlush(q)), "clFlush"))
        engine_failed(e, FAULT_CL_STATUS(clEnqueueBarrierWithWaitList(e->d->queue, 1, &done, NULL)),
                      "clEnqueueBarrierWithWaitList");
    clReleaseEvent(done);
}

void read_out(block_engine *e, const rect_move *m) {
    cl_event queued = NULL;
    if (e->status != APSP_OK || m->rows == 0 || m->cols == 0)
        return;
    if (engine_failed(e,
                      FAULT_CL_STATUS(clEnqueueMarkerWithWaitList(e->d->queue, 0, NULL, &queued)),
                      "clEnqueueMarkerWithWaitList") ||
        engine_failed(e, FAULT_CL_STATUS(clFlush(e->d->queue)), "clFlush")) {
        if (queued)
            clReleaseEvent(queued);
        return;
    }
    cl_event done = NULL;
    move_rect(e, e->d->copy_queue, m, CL_FALSE, queued, &done, PROF_DOWN);
    clReleaseEvent(queued);
    if (done)
        e->outputs[e->output_count++] = done;
    if (e->status == APSP_OK)
        engine_failed(e, FAULT_CL_STATUS(clFlush(e->d->copy_queue)), "clFlush");
}

void engine_outputs_ready(block_engine *e) {
    double t0 = seconds_now();
    if (e->output_count && e->status == APSP_OK)
        engine_failed(e, FAULT_CL_STATUS(clWaitForEvents((cl_uint)e->output_count, e->outputs)),
                      "clWaitForEvents(outputs)");
    outputs_release(e);
    e->profile.wait_outputs += seconds_now() - t0;
}

void outputs_release(block_engine *e) {
    for (size_t i = 0; i < e->output_count; i++)
        clReleaseEvent(e->outputs[i]);
    e->output_count = 0;
}

/* ---- pinned panel memory ----------------------------------------------------------------------
 */

apsp_status engine_panel_memory(block_engine *e, size_t ints, int32_t **out, apsp_error *error) {
    size_t bytes = (ints * sizeof(int32_t) + 63) / 64 * 64, i = 0;
    *out = NULL;
    while (i < PINNED && e->pinned[i])
        i++;
    if (i == PINNED)
        return fail(error, APSP_ERR_INTERNAL, "more than %d pinned panel buffers", PINNED);
    cl_int err;
    bytes = bytes ? bytes : 64;
    e->pinned[i] = FAULT_CL_OBJECT(&err, clCreateBuffer(e->d->context,
                                                        CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                                        bytes, NULL, &err));
    if (err != CL_SUCCESS)
        return cl_fail(error, APSP_ERR_DEVICE, err, "clCreateBuffer(pinned panel) on %s",
                       e->d->name);
    e->pinned_host[i] = FAULT_CL_OBJECT(&err, clEnqueueMapBuffer(e->d->queue, e->pinned[i], CL_TRUE,
                                                                 CL_MAP_READ | CL_MAP_WRITE, 0,
                                                                 bytes, 0, NULL, NULL, &err));
    if (err != CL_SUCCESS) {
        clReleaseMemObject(e->pinned[i]);
        e->pinned[i] = NULL;
        return cl_fail(error, APSP_ERR_DEVICE, err, "clEnqueueMapBuffer(pinned panel) on %s",
                       e->d->name);
    }
    *out = e->pinned_host[i];
    return APSP_OK;
}

/* Called after the rounds: the device is drained first, as nothing may still read the memory. */
void engine_panel_memory_free(block_engine *e, int32_t *memory) {
    for (size_t i = 0; memory && i < PINNED; i++)
        if (e->pinned_host[i] == memory) {
            apsp_backend_opencl.drain(&e->d->base);
            clEnqueueUnmapMemObject(e->d->queue, e->pinned[i], memory, 0, NULL, NULL);
            clFinish(e->d->queue);
            clReleaseMemObject(e->pinned[i]);
            e->pinned[i] = NULL;
            e->pinned_host[i] = NULL;
        }
}

void pinned_release(block_engine *e) {
    for (size_t i = 0; i < PINNED; i++)
        engine_panel_memory_free(e, e->pinned_host[i]);
}
