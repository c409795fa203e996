/* Whole-number float graphs on the int32 kernels, decided from the edges (whole_graph.h). */
#include "whole/whole_graph.h"

#include "base/error.h"
#include "base/graph.h"
#include "base/parallel.h"
#include "base/util.h"
#include "whole/whole_scan.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void whole_graph_plan(const apsp_graph *g, apsp_dtype dtype, whole_plan *plan, int *negative) {
    double most = 0;
    *negative = 0;
    for (size_t e = 0; e < g->edges; e++) {
        double w = graph_weight_real(g, e);
        *negative |= w < 0 && g->source[e] != g->target[e];
        if (w != rint(w)) {
            plan->kernels = dtype;
            snprintf(plan->why, sizeof plan->why,
                     "float path: weight %.17g of edge %zu is not whole", w, e);
            return;
        }
        most = fabs(w) > most ? fabs(w) : most;
    }
    whole_plan_bound(g->vertices, dtype, most, plan);
    size_t len = strlen(plan->why);
    snprintf(plan->why + len, sizeof plan->why - len, " (the %zu edges)", g->edges);
}

/* The graph with its whole real weights as integers (they are within int32's rule), for the
 * int32 solve, which takes integer weights only. */
static apsp_status integer_copy(const apsp_graph *g, apsp_graph **out, apsp_error *error) {
    apsp_status status = apsp_graph_create(g->vertices, g->edges, out, error);
    if (status != APSP_OK || g->edges == 0)
        return status;
    memcpy((*out)->source, g->source, g->edges * sizeof *g->source);
    memcpy((*out)->target, g->target, g->edges * sizeof *g->target);
    for (size_t e = 0; e < g->edges; e++)
        (*out)->weight[e] = (int64_t)g->real_weight[e];
    (*out)->edges = g->edges;
    return APSP_OK;
}

/* The int32 rows of the solve, converted band by band into float cells for the caller. Several
 * devices hand their bands on at once where the caller takes them in any order
 * (apsp_idle_work.rows_in_any_order): one band at a time converts in the one buffer. */
typedef struct float_rows {
    pthread_mutex_t lock; /* the buffer's, through the caller's taking of the band */
    apsp_cells_fn cells;
    void *context;
    apsp_dtype dtype;
    size_t n;
    unsigned threads;
    void *buffer; /* `room` rows of n cells of dtype */
    size_t room;
    const int32_t *rows; /* the band being converted */
    size_t pitch;
} float_rows;

static int convert_band(void *context, size_t begin, size_t end) {
    const float_rows *f = context;
    for (size_t i = begin; i < end; i++) {
        const int32_t *row = f->rows + i * f->pitch;
        if (f->dtype == APSP_FLOAT32) {
            float *out = (float *)f->buffer + i * f->n;
            for (size_t j = 0; j < f->n; j++)
                out[j] = (float)cell_number(APSP_INT32, row, j);
        } else {
            double *out = (double *)f->buffer + i * f->n;
            for (size_t j = 0; j < f->n; j++)
                out[j] = cell_number(APSP_INT32, row, j);
        }
    }
    return 0;
}

static apsp_status float_rows_of(void *context, size_t first_row, size_t count, const int32_t *rows,
                                 size_t pitch, apsp_error *error) {
    float_rows *f = context;
    const size_t row_bytes = f->n * apsp_dtype_size(f->dtype);
    pthread_mutex_lock(&f->lock);
    if (count > f->room) {
        free(f->buffer);
        f->buffer = apsp_malloc(count * row_bytes);
        f->room = f->buffer ? count : 0;
    }
    apsp_status status = f->buffer ? APSP_OK
                                   : fail(error, APSP_ERR_NO_MEMORY,
                                          "out of memory for %zu rows of %zu cells", count, f->n);
    if (status == APSP_OK) {
        f->rows = rows;
        f->pitch = pitch;
        parallel_slices(count, (uint64_t)count * row_bytes < PARALLEL_BYTES ? 1 : f->threads,
                        convert_band, f);
        status = f->cells(f->context, first_row, count, f->buffer, f->n, error);
    }
    pthread_mutex_unlock(&f->lock);
    return status;
}

/* The int32 route: the graph (an integer copy of its whole real weights) solved by the job's
 * on_edges (apsp_solver_solve_graph), its rows converted band by band, by the caller's own
 * conversion where it has one. */
static apsp_status solve_from_edges(apsp_solver *solver, const apsp_graph *graph, apsp_dtype dtype,
                                    apsp_cells_fn cells, void *context, const whole_graph_job *job,
                                    apsp_report *report, apsp_error *error) {
    apsp_graph *copy = NULL;
    apsp_status status = graph->real_weight ? integer_copy(graph, &copy, error) : APSP_OK;
    if (status != APSP_OK)
        return status;
    float_rows f = {.cells = cells,
                    .context = context,
                    .dtype = dtype,
                    .n = graph->vertices,
                    .threads = job->threads};
    pthread_mutex_init(&f.lock, NULL);
    status =
        job->int32_cells
            ? job->on_edges(solver, copy ? copy : graph, job->int32_cells, context, report, error)
            : job->on_edges(solver, copy ? copy : graph, float_rows_of, &f, report, error);
    pthread_mutex_destroy(&f.lock);
    free(f.buffer);
    apsp_graph_destroy(copy);
    return status;
}

apsp_status whole_graph_solve(apsp_solver *solver, const apsp_graph *graph, apsp_dtype dtype,
                              apsp_cells_fn cells, void *context, const whole_graph_job *job,
                              apsp_report *report, apsp_error *error) {
    double start = seconds_now();
    whole_plan plan = {.kernels = dtype};
    int negative = 0;
    if (job->float_kernels)
        snprintf(plan.why, sizeof plan.why, "float path: asked for (float_kernels)");
    else
        whole_graph_plan(graph, dtype, &plan, &negative);
    double seconds = seconds_now() - start;
    if (plan.kernels == APSP_INT64 || (plan.kernels == APSP_INT32 && negative))
        return job->on_matrix(solver, graph, dtype, 0, cells, context, report, error);
    apsp_status status =
        plan.kernels == APSP_INT32
            ? solve_from_edges(solver, graph, dtype, cells, context, job, report, error)
            : job->on_matrix(solver, graph, dtype, 1, cells, context, report, error);
    if (status == APSP_OK && report) {
        report->kernels = plan.kernels;
        snprintf(report->kernels_why, sizeof report->kernels_why, "%s", plan.why);
        report->whole_seconds = seconds;
    }
    return status;
}
