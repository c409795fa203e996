/* Chosen sources on the solver's device (on_device.h): the batches, the rows handed on, the
 * report. The algorithm and its memory are the backend's (src/opencl/sssp.c). */
#include "sssp/on_device.h"
#include "base/error.h"
#include "base/graph.h"
#include "base/util.h"
#include "drivers/drivers.h"

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
    return within || (!negative && weights_path_bound(g->weight, NULL, NULL, e, g->vertices, 0) <=
                                       (uint64_t)APSP_INF - 1);
}

double adjacency_least_weight(const adjacency *g) {
    size_t e = g->start[g->vertices];
    double least = 1.0 / 0.0;
    for (size_t i = 0; i < e; i++) {
        double w = g->real ? g->real[i] : (double)g->weight[i];
        least = w < least ? w : least;
    }
    return least;
}

/* Why the device's part cannot run this solve (NULL: it can). Integer rows come from integer
 * weights within their rule (int64's was checked with the graph), float rows from weights of
 * either kind summed in the rows' type, which takes no negative weight (a negative cycle's
 * rounds would sink without end: the host's Bellman-Ford and Johnson run those); predecessors
 * want every weight above 0 (cl/sssp.cl: sssp_pred). */
static const char *cannot_run(const backend_sources *part, backend_device *device,
                              const adjacency *graph, apsp_dtype dtype, int want_pred) {
    const char *declined = part->declines(device, dtype);
    if (declined)
        return declined;
    if (graph->start[graph->vertices] >= UINT32_MAX)
        return "it indexes fewer than 2^32 edges";
    int integer = dtype == APSP_INT32 || dtype == APSP_INT64;
    if (integer && !graph->weight)
        return "its integer rows take integer weights and these are real";
    if (dtype == APSP_INT32 && !weights_fit_int32(graph))
        return "its distances are int32 and these weights could pass them";
    double least = adjacency_least_weight(graph);
    if (!integer && least < 0)
        return "its float sums take no negative weight (johnson on the host does)";
    if (want_pred && least <= 0)
        return "it picks predecessors only where every weight is above 0";
    return NULL;
}

int device_method_of(backend_device *device, sources_run run, device_method *m) {
    if (!device || !device->impl->sources)
        return 0;
    device_summary summary;
    device->impl->summarize(device, &summary);
    *m = (device_method){
        .part = device->impl->sources, .device = device, .kind = device->impl->kind, .run = run};
    snprintf(m->name, sizeof m->name, "%s", summary.device);
    m->part->costs(device, &m->costs);
    return 1;
}

int device_method_find(backend_device *device, const adjacency *graph, apsp_dtype dtype,
                       int want_pred, device_method *m, char *why_not, size_t size) {
    why_not[0] = '\0';
    if (graph->vertices == 0 || !device_method_of(device, (sources_run){dtype, want_pred}, m))
        return 0;
    const char *reason = cannot_run(m->part, device, graph, dtype, want_pred);
    if (reason)
        snprintf(why_not, size, "bellman-ford on %.60s: %s", m->name, reason);
    return reason == NULL;
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

/* The rows' and the predecessors' functions of a sources_out (its offset added). */
static apsp_status cells_of(void *context, size_t first_row, size_t count, const void *rows,
                            size_t pitch, apsp_error *error) {
    const sources_out *out = context;
    return out->rows(out->context, out->offset + first_row, count, rows, pitch, error);
}

static apsp_status pred_of(void *context, size_t first_row, size_t count, const int32_t *rows,
                           size_t pitch, apsp_error *error) {
    const sources_out *out = context;
    return out->pred(out->pred_context, out->offset + first_row, count, rows, pitch, error);
}

apsp_status device_method_run(device_method *m, const adjacency *graph, const int32_t *sources,
                              size_t count, const apsp_options *o, const sources_out *out,
                              size_t *done, apsp_error *error) {
    *done = 0;
    if (count == 0)
        return APSP_OK;
    /* The caller's work (the outputs' pages) while the graph goes up and the first batch's
     * rounds run: done before any row is handed on, as apsp_idle_work promises. Later batches'
     * rounds wait for the rows before them (one block on the device), so they hide nothing. */
    beside helper;
    beside_start(&helper, out->idle);
    apsp_status status = m->part->prepare(m->device, graph, count, m->run, &m->batch, error);
    int give_up = 0;
    while (status == APSP_OK && *done < count && !give_up) {
        size_t n = count - *done < m->batch ? count - *done : m->batch;
        status = m->part->solve(m->device, sources + *done, n, &give_up, error);
        if (*done == 0)
            m->overlapped = beside_finish(&helper, seconds_now());
        if (status == APSP_OK && !give_up)
            status = m->part->store_rows(m->device, *done, cells_of, (void *)out,
                                         out->pred ? pred_of : NULL, (void *)out, error);
        if (status == APSP_OK && !give_up) {
            *done += n;
            status = after_batch(o, *done, count, error);
        }
    }
    beside_finish(&helper, 0.0); /* (prepare failed: nothing was hidden) */
    m->part->release(m->device, &m->times);
    m->on_host = count - *done;
    return status;
}

void device_method_describe(const device_method *m, const char *why, apsp_report *report) {
    const sources_device_times *t = &m->times;
    snprintf(report->method, sizeof report->method,
             "bellman-ford on %.60s: batched frontier, %s distances%s, %zu sources a batch%s; %s",
             m->name, apsp_dtype_name(m->run.dtype),
             m->run.pred ? ", predecessors picked on the device" : "", m->batch,
             m->on_host ? " (the last ones on the host threads: a negative cycle, or a vertex "
                          "without a predecessor the device could pick)"
                        : "",
             why);
    snprintf(report->choice, sizeof report->choice,
             "sources on the device: %zu batches, %zu rounds in %.3f s (kernels %.3f s), %zu "
             "sweeps, %.3g pairs; upload %.3f s, download %.3f s (writes beside %.3f s), hidden "
             "%.3f s",
             t->batches, t->round_count, t->rounds, t->kernels, t->sweeps, (double)t->pairs,
             t->upload, t->download, t->handed, m->overlapped);
    snprintf(report->backend, sizeof report->backend, "%s", apsp_backend_name(m->kind));
    snprintf(report->device, sizeof report->device, "%s", m->name);
    report->upload_seconds = t->upload;
    report->download_seconds = t->download;
    report->overlapped_seconds = m->overlapped;
    report->threads = 0;
}
