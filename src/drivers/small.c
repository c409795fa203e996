/* The backend's small solve (drivers.h: drive_small): a graph of a few vertices on the calling
 * thread, over its own cells, where waking a device's threads would cost more than the work. */
#include "drivers/drivers.h"
#include "base/error.h"
#include "base/util.h"

#include <stdio.h>

/* Whether the matrix goes to the backend's small solve: one device that has one, and a graph
 * within its size (a round's work, microseconds, less than waking its threads). */
int drive_takes_small(backend_device *const *devices, size_t count, const apsp_matrix *matrix) {
    const apsp_backend_impl *impl = devices[0]->impl;
    return count == 1 && impl->solve_small && matrix->n <= impl->small_vertices;
}

/* The small solve: the graph's cells checked (or `known`), solved on this thread, its negative
 * cycles found as the drivers find them. The report names the calling thread. */
apsp_status drive_small(const backend_device *device, apsp_matrix *matrix, const cell_facts *known,
                        const apsp_options *o, apsp_report *report, apsp_error *error) {
    const apsp_backend_impl *impl = device->impl;
    const double start = seconds_now();
    cell_facts facts = {0, 0};
    apsp_status status =
        known ? APSP_OK : matrix_check_graph_cells(matrix, &facts.negative, &facts.most, error);
    const int negative = known ? known->negative : facts.negative;
    if (status == APSP_OK)
        status = impl->solve_small(matrix, negative, known ? known->most : facts.most, error);
    if (status == APSP_OK && negative)
        status = matrix_check_cycles(matrix, error);
    if (status != APSP_OK)
        return status;
    if (o->progress) /* its one round done (no cancel: none is asked after the last round) */
        o->progress(o->progress_context, 1, 1);
    if (!report)
        return APSP_OK;
    snprintf(report->backend, sizeof report->backend, "%s", apsp_backend_name(impl->kind));
    snprintf(report->device, sizeof report->device, "the calling thread (small solve, V <= %zu)",
             impl->small_vertices);
    report->padded = matrix->n;
    report->tile = (int)matrix->n;
    report->threads = 1;
    report->devices = 1;
    report->compute_seconds = seconds_now() - start;
    return APSP_OK;
}
