/* apsp_solver_solve_paths: the distances and their predecessors, on the devices where the
 * backend derives them (the first tight in-edge: paths/tight_csr.c), else on the host threads
 * after the solve (apsp_predecessors). */
#include "base/error.h"
#include "base/graph.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "drivers/drivers.h"
#include "paths/tight_csr.h"
#include "solver/solver.h"

#include <string.h>

/* The predecessors after the solve on the host threads (apsp_predecessors), timed. */
static apsp_status host_paths(const apsp_solver *s, const apsp_matrix *m, const apsp_graph *g,
                              int32_t *pred, apsp_report *report, apsp_error *error) {
    double start = seconds_now();
    unsigned threads = threads_of(s->options.threads);
    apsp_status status = apsp_predecessors(g, m, 0, m->n, threads, pred, error);
    if (status == APSP_OK && report) {
        report->paths_seconds = seconds_now() - start;
        report->paths_on_device = 0;
    }
    return status;
}

apsp_status apsp_solver_solve_paths(apsp_solver *s, apsp_matrix *matrix, const apsp_graph *graph,
                                    int32_t *pred, apsp_report *report, apsp_error *error) {
    if (report)
        memset(report, 0, sizeof *report);
    if (!s || !graph || !pred)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_solver_solve_paths: no solver, graph or predecessor array");
    apsp_status status = matrix_check_shape(matrix, error);
    if (status == APSP_OK && matrix->dtype != APSP_INT32)
        status = fail(error, APSP_ERR_USAGE,
                      "apsp_solver_solve_paths: %s distances (it takes int32 ones)",
                      apsp_dtype_name(matrix->dtype));
    if (status == APSP_OK && graph->vertices != matrix->n)
        status = fail(error, APSP_ERR_USAGE,
                      "apsp_solver_solve_paths: the graph has %zu vertices but the matrix %zu",
                      graph->vertices, matrix->n);
    if (status == APSP_OK)
        status = graph_check(graph, threads_of(s->options.threads), error);
    /* On the devices where the backend can and the first tight in-edge will do (tight_csr.c). */
    paths_csr csr;
    int eligible = 0;
    if (status == APSP_OK && s->devices[0]->impl->paths && matrix->dtype == APSP_INT32 &&
        !drive_streams(s->devices, s->count, matrix->n, matrix->dtype))
        status = tight_csr_make(graph, threads_of(s->options.threads), &csr, &eligible, error);
    if (status == APSP_OK && eligible) {
        paths_job job = {.csr = &csr, .pred = pred};
        status = drive_rows_paths(s->devices, s->count, matrix, &job, &s->options, report, error);
        if (status == APSP_OK)
            add_open_to_report(s, report);
        if (status == APSP_OK)
            note_own_kernels(report, APSP_INT32);
        if (status == APSP_OK && job.untight) /* the host says what is wrong */
            status = host_paths(s, matrix, graph, pred, report, error);
        else if (status == APSP_OK && report) {
            report->paths_seconds = job.seconds;
            report->paths_on_device = 1;
        }
    } else if (status == APSP_OK) {
        status = apsp_solver_solve(s, matrix, report, error);
        if (status == APSP_OK)
            status = host_paths(s, matrix, graph, pred, report, error);
    }
    if (eligible)
        tight_csr_free(&csr);
    return status;
}
