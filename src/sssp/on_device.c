/* Chosen sources on the solver's device (on_device.h): the batches, the rows handed on, the
 * report. The algorithm and its memory are the backend's (src/opencl/sssp.c). */
#include "sssp/on_device.h"
#include "base/error.h"
#include "base/graph.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

/* Whether the device's int32 distances hold the adjacency's: every weight within int32's rule
 * for its V, or none negative and the path bound below APSP_INF (base/graph.h: each distance
 * the rounds set is a simple path's length, and one more weight stays below 2^31). With a
 * negative weight the per-weight rule stays: a negative cycle's rounds walk past any path
 * bound before the batch is handed to the host. */
static int weights_fit_int32(const adjacency *g) {
    weight_rule rule = weight_rule_for(g->vertices, APSP_INT32);
    size_t e = g->start[g->vertices];
    int within = 1, negative = 0;
    for (size_t i = 0; i < e; i++) {
        within &= g->weight[i] >= rule.least && g->weight[i] <= rule.most;
        negative |= g->weight[i] < 0;
    }
    return within || (!negative && weights_path_bound(g->weight, NULL, NULL, e, g->vertices) <=
                                       (uint64_t)APSP_INF - 1);
}

/* Why the device's part cannot run this solve (NULL: it can). */
static const char *cannot_run(const adjacency *graph, apsp_dtype dtype, int want_pred) {
    if (dtype != APSP_INT32)
        return "its distances are int32 and these rows are wider";
    if (want_pred)
        return "it keeps no predecessors and they are asked for";
    if (!graph->weight)
        return "its weights are integers and these are real";
    if (graph->start[graph->vertices] >= UINT32_MAX)
        return "it indexes fewer than 2^32 edges";
    if (!weights_fit_int32(graph))
        return "its distances are int32 and these weights could pass them";
    return NULL;
}

int device_method_find(const apsp_solver *solver, const adjacency *graph, apsp_dtype dtype,
                       int want_pred, device_method *m, char *why_not, size_t size) {
    const apsp_backend_impl *impl;
    backend_device *device = solver_device(solver, &impl);
    why_not[0] = '\0';
    if (!device || !impl->sources || graph->vertices == 0)
        return 0;
    device_summary summary;
    impl->summarize(device, &summary);
    const char *reason = cannot_run(graph, dtype, want_pred);
    if (reason) {
        snprintf(why_not, size, "bellman-ford on %.60s: %s", summary.device, reason);
        return 0;
    }
    *m = (device_method){.part = impl->sources, .device = device, .kind = impl->kind};
    snprintf(m->name, sizeof m->name, "%s", summary.device);
    m->rate = m->part->rate(device);
    return 1;
}

/* The options' progress and cancel functions after a batch. */
static apsp_status after_batch(const apsp_options *o, size_t done, size_t total,
                               apsp_error *error) {
    if (o->progress)
        o->progress(o->progress_context, done, total);
    if (o->cancelled && done < total && o->cancelled(o->cancel_context))
        return fail(error, APSP_ERR_CANCELLED, "the solve was cancelled after %zu of %zu sources",
                    done, total);
    return APSP_OK;
}

apsp_status device_method_run(device_method *m, const adjacency *graph, const int32_t *sources,
                              size_t count, const apsp_options *o, apsp_rows_fn rows, void *context,
                              size_t *done, apsp_error *error) {
    *done = 0;
    if (count == 0)
        return APSP_OK;
    apsp_status status = m->part->prepare(m->device, graph, count, &m->batch, error);
    int cycle = 0;
    while (status == APSP_OK && *done < count && !cycle) {
        size_t n = count - *done < m->batch ? count - *done : m->batch;
        status = m->part->solve(m->device, sources + *done, n, &cycle, error);
        if (status == APSP_OK && !cycle)
            status = m->part->store_rows(m->device, *done, rows, context, error);
        if (status == APSP_OK && !cycle) {
            *done += n;
            status = after_batch(o, *done, count, error);
        }
    }
    m->part->release(m->device, &m->times);
    return status;
}

void device_method_describe(const device_method *m, const char *why, apsp_report *report) {
    const sources_device_times *t = &m->times;
    snprintf(report->method, sizeof report->method,
             "bellman-ford on %.60s: batched frontier, %zu sources a batch; %s", m->name, m->batch,
             why);
    snprintf(report->choice, sizeof report->choice,
             "sources on the device: %zu batches, %zu rounds in %.3f s (kernels %.3f s), %zu "
             "sweeps, %.3g pairs; upload %.3f s, download %.3f s",
             t->batches, t->round_count, t->rounds, t->kernels, t->sweeps, (double)t->pairs,
             t->upload, t->download);
    snprintf(report->backend, sizeof report->backend, "%s", apsp_backend_name(m->kind));
    snprintf(report->device, sizeof report->device, "%s", m->name);
    report->upload_seconds = t->upload;
    report->download_seconds = t->download;
    report->threads = 0;
}
