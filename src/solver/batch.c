/* apsp_solver_solve_batch (apsp_batch.h): the batch's layout checked, its small graphs to the
 * backend's host threads (drivers/batch.c) and every other graph solved alone, so that each
 * graph's bytes are what apsp_solver_solve gives it. */
#include "base/error.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/parallel.h"
#include "base/util.h"
#include "drivers/drivers.h"
#include "drivers/fw_tracked.h"
#include "solver/solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The batch's shape against its layout, and each graph's first cell into offsets. */
static apsp_status plan_batch(const apsp_batch *b, uint64_t *offsets, uint64_t *nodes,
                              apsp_error *error) {
    uint64_t at = 0, node = 0;
    for (size_t g = 0; g < b->count; g++) {
        const size_t n = b->vertices[g];
        if (b->pitch && n > b->pitch)
            return fail(error, APSP_ERR_USAGE, "graph %zu: %zu vertices exceed the pitch %zu", g, n,
                        b->pitch);
        if (n > INT32_MAX || (!b->pitch && at + (uint64_t)n * n < at))
            return fail(error, APSP_ERR_USAGE, "graph %zu: %zu vertices are too many", g, n);
        offsets[g] = b->pitch ? (uint64_t)g * b->pitch * b->pitch : at;
        nodes[g] = node;
        node += n;
        at += (uint64_t)n * n;
    }
    nodes[b->count] = node;
    if ((at || b->edges) && !b->cells)
        return fail(error, APSP_ERR_USAGE, "apsp_solver_solve_batch: the batch has no cells");
    if (b->edges && (!b->edges->source || !b->edges->target))
        return fail(error, APSP_ERR_USAGE, "apsp_solver_solve_batch: edges without their arrays");
    return APSP_OK;
}

/* Graph g alone: copied into a matrix of the library's, solved by apsp_solver_solve and copied
 * back; its predecessors from fw_tracked over a copy of its cells. */
static apsp_status solve_alone(apsp_solver *s, const batch_plan *plan, size_t g,
                               apsp_error *error) {
    apsp_matrix view = batch_view(plan, g);
    cell_facts facts; /* (apsp_solver_solve checks the cells itself) */
    apsp_status filled = plan->batch->edges ? batch_fill(plan, g, &facts, error) : APSP_OK;
    if (filled != APSP_OK || view.n == 0)
        return filled;
    matrix_clear_negative_zeros(&view, 1); /* as apsp_solver_solve does, before the copy */
    const size_t cell = apsp_dtype_size(view.dtype), row = view.n * cell;
    const size_t pitch = view.stride * cell; /* the copy's rows at pred's pitch */
    int32_t *pred = batch_pred(plan, g);
    char *copy = NULL;
    if (pred) {
        copy = apsp_malloc(view.n * pitch + fw_tracked_scratch(view.dtype, view.n));
        if (!copy)
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory for a copy of graph %zu", g);
        for (size_t i = 0; i < view.n; i++)
            memcpy(copy + i * pitch, apsp_matrix_row_cells(&view, i), row);
    }
    apsp_matrix *m = NULL;
    apsp_status status = apsp_matrix_create_typed(view.n, view.dtype, &m, error);
    for (size_t i = 0; status == APSP_OK && i < view.n; i++)
        memcpy(apsp_matrix_row_cells(m, i), apsp_matrix_row_cells(&view, i), row);
    if (status == APSP_OK)
        status = apsp_solver_solve(s, m, NULL, error);
    for (size_t i = 0; status == APSP_OK && i < view.n; i++)
        memcpy(apsp_matrix_row_cells(&view, i), apsp_matrix_row_cells(m, i), row);
    apsp_matrix_destroy(m);
    if (status == APSP_OK && pred)
        fw_tracked(view.dtype, copy, view.n, view.stride, pred, copy + view.n * pitch);
    free(copy);
    return status;
}

/* The smallest size a graph goes alone at: past the backend's small solve on its threads, past
 * what its device solves in a batch (predecessors: the host's fw_tracked, on the threads or
 * alone), 0 when every graph goes alone. */
static size_t alone_above(backend_device *device, const apsp_batch *b) {
    if (!device)
        return 0;
    const apsp_backend_impl *impl = device->impl;
    if (impl->run_items && impl->solve_small)
        return impl->small_vertices;
    if (impl->graphs && !b->predecessors)
        return impl->graphs->most_vertices(device, b->dtype);
    return 0;
}

/* The report of a batch: who solved it, on how many threads or on the device, in how long. */
static void report_batch(apsp_report *report, backend_device *device, size_t small,
                         const graphs_times *times, double seconds) {
    if (!report)
        return;
    const apsp_backend_impl *impl = device ? device->impl : NULL;
    memset(report, 0, sizeof *report);
    snprintf(report->backend, sizeof report->backend, "%s",
             impl ? apsp_backend_name(impl->kind) : "");
    const unsigned threads = small && impl->run_items ? impl->host_threads(device) : 0;
    if (threads)
        snprintf(report->device, sizeof report->device,
                 "%u host threads (batch: a graph per thread, V <= %zu)", threads, small);
    else if (small) {
        device_summary summary;
        impl->summarize(device, &summary);
        snprintf(report->device, sizeof report->device,
                 "%.180s (batch: a work-group per graph, V <= %zu)", summary.device, small);
        report->program_builds = summary.program_builds;
    } else
        snprintf(report->device, sizeof report->device, "the solver's devices, a graph at a time");
    report->threads = (int)threads;
    report->devices = 1;
    report->setup_seconds = times->setup;
    report->upload_seconds = times->upload;
    report->download_seconds = times->download;
    report->compute_seconds = seconds;
}

/* The batch with each graph's first edge found (batch_first_edges) where its edges came
 * without them: *found and *edges filled, their `first` malloc'd into *first. */
static apsp_status with_first_edges(const apsp_solver *s, const apsp_batch *b,
                                    const uint64_t *nodes, apsp_batch *found,
                                    apsp_batch_edges *edges, size_t **first, apsp_error *error) {
    *first = apsp_malloc((b->count + 1) * sizeof **first);
    if (!*first)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for %zu graphs' first edges",
                    b->count);
    *edges = *b->edges;
    edges->first = *first;
    *found = *b;
    found->edges = edges;
    return batch_first_edges(b, nodes, b->edges->edge_count, threads_of(solver_options(s)->threads),
                             *first, error);
}

apsp_status apsp_solver_solve_batch(apsp_solver *s, const apsp_batch *b, apsp_report *report,
                                    apsp_error *error) {
    if (report)
        memset(report, 0, sizeof *report);
    if (!s || !b || (b->count && !b->vertices) || apsp_dtype_size(b->dtype) == 0)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_solver_solve_batch: no solver, no batch, no sizes or no element type");
    const double start = seconds_now();
    uint64_t *offsets = apsp_malloc(2 * (b->count + 1) * sizeof *offsets);
    if (!offsets)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory for %zu graphs' offsets", b->count);
    batch_plan plan = {b, offsets, offsets + b->count + 1};
    apsp_status status = plan_batch(b, offsets, offsets + b->count + 1, error);
    apsp_batch found;
    apsp_batch_edges edges;
    size_t *first = NULL;
    if (status == APSP_OK && b->edges && !b->edges->first) {
        status = with_first_edges(s, b, plan.nodes, &found, &edges, &first, error);
        plan.batch = &found;
    }
    backend_device *device = solver_device(s);
    const size_t small = status == APSP_OK ? alone_above(device, b) : 0;
    graphs_times times = {0, 0, 0, 0, 0};
    if (small && device->impl->run_items)
        status = drive_batch(device, &plan, error);
    else if (small) {
        status = drive_batch_device(device, &plan, small, &times, error);
        /* Where a device batch's time went (the report has no field for the kernels): the
         * host's waits for chunks to come back, and (with a profile) the device's own parts. */
        log_message(solver_options(s), APSP_LOG_INFO,
                    "batch on the device, V <= %zu: program %.3f s, host waited on the device "
                    "%.3f s (profile: up %.3f s, kernels %.3f s, down %.3f s), in all with the "
                    "host's fill, check, packing and unpacking %.3f s",
                    small, times.setup, times.wait, times.upload, times.kernels, times.download,
                    seconds_now() - start);
    }
    apsp_error cause;
    for (size_t g = 0; status == APSP_OK && g < b->count; g++)
        if ((!small || b->vertices[g] > small) &&
            (status = solve_alone(s, &plan, g, &cause)) != APSP_OK)
            batch_fail(error, &cause, g);
    free(offsets);
    free(first);
    if (status == APSP_OK)
        report_batch(report, device, small, &times, seconds_now() - start);
    return status;
}
