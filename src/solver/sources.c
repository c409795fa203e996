/* apsp_solver_solve_sources: distances from chosen sources, handed out in batches of rows
 * (src/sssp/: sssp.h for the algorithms, method.h for the choice, on_threads.c for the host
 * threads' run, on_device.c for the device's). Memory: the adjacency (O(E)), one batch of rows and
 * a scratch of O(V) per thread; never V^2, except for Floyd-Warshall. */
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/memory_room.h"
#include "base/parallel.h"
#include "base/util.h"
#include "sssp/method.h"
#include "sssp/on_device.h"
#include "sssp/on_device_johnson.h"
#include "sssp/on_threads.h"
#include "sssp/sssp.h"
#include "solver/solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every predecessor row of the solved matrix (V x V: Floyd-Warshall has V^2 memory anyway). */
static apsp_status fw_predecessors(const apsp_graph *graph, const apsp_matrix *m, unsigned threads,
                                   int32_t **pred, apsp_error *error) {
    size_t v = graph->vertices;
    *pred = NULL;
    char what[96];
    snprintf(what, sizeof what, "sources: V = %zu: the predecessor matrix", v);
    apsp_status status = memory_room_check((uint64_t)v * v * sizeof **pred, what, error);
    if (status != APSP_OK)
        return status;
    *pred = apsp_malloc(v * v * sizeof **pred);
    if (!*pred)
        return fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for the predecessors");
    return apsp_predecessors(graph, m, 0, v, threads, *pred, error);
}

/* An apsp_rows_fn handing int32 rows on to a sources_out's cells function (Floyd-Warshall's
 * rows straight off the devices), `first_row` counted from the sources_out's first source. */
static apsp_status int32_rows_of(void *context, size_t first_row, size_t count, const int32_t *rows,
                                 size_t pitch, apsp_error *error) {
    const sources_out *out = context;
    return out->rows(out->context, out->offset + first_row, count, rows, pitch, error);
}

/* Floyd-Warshall for the sources: every source in order without predecessors is
 * apsp_solver_solve_graph (whose rows an OpenCL device hands on without a host matrix); else the
 * rows are picked out of the solved host matrix (and the predecessors' of apsp_predecessors), a
 * batch at a time. */
static apsp_status run_fw(apsp_solver *solver, const apsp_graph *graph, const int32_t *sources,
                          size_t count, const sources_out *out, apsp_report *report,
                          apsp_error *error) {
    size_t v = graph->vertices, in_order = 0, row_bytes = v * apsp_dtype_size(out->dtype);
    while (in_order < count && sources[in_order] == (int32_t)in_order)
        in_order++;
    if (in_order == v && count == v && !out->pred && out->dtype == APSP_INT32)
        return apsp_solver_solve_graph(solver, graph, int32_rows_of, (void *)out, report, error);
    int threads = solver_options(solver)->threads;
    apsp_matrix *m = NULL;
    int32_t *all_pred = NULL, *pred = NULL;
    void *rows = NULL;
    size_t batch = sources_batch_rows(v, out->dtype, count);
    apsp_status status = apsp_graph_to_matrix_threads(graph, out->dtype, threads, &m, error);
    if (status == APSP_OK)
        status = apsp_solver_solve(solver, m, report, error);
    if (status == APSP_OK && out->pred)
        status = fw_predecessors(graph, m, threads_of(threads), &all_pred, error);
    if (status == APSP_OK)
        status =
            sources_batch_buffers(batch, v, out->dtype, out->pred != NULL, &rows, &pred, error);
    for (size_t first = 0; first < count && status == APSP_OK; first += batch) {
        size_t n = count - first < batch ? count - first : batch;
        for (size_t i = 0; i < n; i++) {
            size_t source = (size_t)sources[first + i];
            memcpy((char *)rows + i * row_bytes, apsp_matrix_row_cells(m, source), row_bytes);
            if (pred)
                memcpy(pred + i * v, all_pred + source * v, v * sizeof *pred);
        }
        status = sources_hand_on(out, first, n, rows, pred, v, error);
    }
    free(rows);
    free(pred);
    free(all_pred);
    apsp_matrix_destroy(m);
    return status;
}

/* Every source in [0, V): else APSP_ERR_USAGE naming the first that is not. */
static apsp_status check_sources(const int32_t *sources, size_t count, size_t vertices,
                                 apsp_error *error) {
    for (size_t i = 0; i < count; i++)
        if (sources[i] < 0 || (size_t)sources[i] >= vertices)
            return fail(error, APSP_ERR_USAGE,
                        "source %d (number %zu of the list) is out of "
                        "range [0, %zu)",
                        sources[i], i + 1, vertices);
    return APSP_OK;
}

/* The list of every vertex, for sources = NULL. */
static int32_t *every_vertex(size_t vertices) {
    int32_t *all = apsp_malloc((vertices ? vertices : 1) * sizeof *all);
    for (size_t i = 0; all && i < vertices; i++)
        all[i] = (int32_t)i;
    return all;
}

/* The report of a run on the host threads; `width` says which distances Dijkstra kept. */
static void report_threads(apsp_report *report, const apsp_options *o, double seconds,
                           const char *width) {
    snprintf(report->backend, sizeof report->backend, "%s", apsp_backend_name(APSP_BACKEND_CPU));
    snprintf(report->device, sizeof report->device, "host threads");
    snprintf(report->choice, sizeof report->choice,
             "sources: the sparse methods run on the host threads%s", width);
    report->threads = (int)sources_worker_count(o);
    report->compute_seconds = seconds;
}

/* A real graph's whole weights (its check for an integer type found them whole and within
 * the type's rule) as int64, so that integer distances are summed exactly. */
static apsp_status adjacency_as_integers(adjacency *adj, apsp_error *error) {
    size_t e = adj->start[adj->vertices];
    adj->weight = apsp_malloc((e ? e : 1) * sizeof *adj->weight);
    if (!adj->weight)
        return fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory for %zu weights", e);
    for (size_t i = 0; i < e; i++)
        adj->weight[i] = (int64_t)adj->real[i];
    free(adj->real);
    adj->real = NULL;
    return APSP_OK;
}

/* Bellman-Ford on the device; a batch that may reach a negative cycle or whose predecessors the
 * device could not pick, and those after it, on the host threads, which name the cycle's vertex
 * as the host's Bellman-Ford does. */
static apsp_status run_on_device(device_method *m, const adjacency *g, const int32_t *sources,
                                 size_t count, const apsp_options *o, const sources_out *out,
                                 apsp_error *error) {
    size_t done;
    apsp_status status = device_method_run(m, g, sources, count, o, out, &done, error);
    sources_out rest = *out;
    rest.offset = done;
    if (status == APSP_OK && done < count)
        status = sources_run_on_threads(g, APSP_METHOD_BELLMAN_FORD, sources + done, count - done,
                                        o, &rest, NULL, 0, error);
    return status;
}

/* A sparse method on the host threads while the solver has a device that cannot run the device's
 * method for it (`declined` says why: bellman-ford's, or johnson's, or that dijkstra has none):
 * the report says why, and with apsp_options.sources_device_only bellman-ford and johnson asked
 * for are refused instead. */
static apsp_status check_declined(const apsp_options *o, apsp_method asked, apsp_method chosen,
                                  int on_device, const char *declined, apsp_report *report,
                                  apsp_error *error) {
    if (!declined[0] || on_device || chosen == APSP_METHOD_FW)
        return APSP_OK;
    snprintf(report->device_declined, sizeof report->device_declined, "%s", declined);
    if (o->sources_device_only && chosen == asked && chosen != APSP_METHOD_DIJKSTRA)
        return fail(error, APSP_ERR_USAGE,
                    "sources: %s, and apsp_options.sources_device_only keeps %s off the host "
                    "threads: allow them, or ask for what the device runs",
                    declined, apsp_method_name(chosen));
    return APSP_OK;
}

/* Why the device's method cannot run `chosen` (asked for, or auto's) where the solver has a
 * device with the sources part: Johnson's reason for Johnson and for auto on negative weights,
 * Bellman-Ford's otherwise, and Dijkstra's own (the device has none). */
static const char *declined_for(apsp_method asked, apsp_method chosen, int negative,
                                int device_has_part, const char *bellman_ford,
                                const char *johnson) {
    if (chosen == APSP_METHOD_DIJKSTRA && asked == APSP_METHOD_DIJKSTRA)
        return device_has_part ? "dijkstra runs on the host threads only (the device runs "
                                 "bellman-ford and johnson)"
                               : "";
    return chosen == APSP_METHOD_JOHNSON || (asked == APSP_METHOD_AUTO && negative) ? johnson
                                                                                    : bellman_ford;
}

/* Johnson's report: the device's (returns 1), or the host threads' where its search could not
 * run there once the potentials were known (the reason in device_declined; returns 0). */
static int report_johnson(const device_johnson *j, const apsp_options *o, double seconds,
                          const char *why, apsp_report *report) {
    if (j->declined[0]) {
        report_threads(report, o, seconds, "");
        snprintf(report->device_declined, sizeof report->device_declined, "%s", j->declined);
        return 0;
    }
    report->compute_seconds = seconds;
    device_johnson_describe(j, why, report);
    return 1;
}

/* The sources a device's run handed to the host threads (a batch it gave up: a reached vertex
 * without a predecessor it could pick), in device_declined, which the CLI prints where a device
 * was named: found during the run, after rows went out, so never refused. */
static void note_on_host(apsp_status status, const char *method, const device_method *m,
                         size_t on_host, size_t count, apsp_report *report) {
    if (status == APSP_OK && on_host > 0)
        snprintf(report->device_declined, sizeof report->device_declined,
                 "%.12s on %.40s: the last %zu of %zu sources ran on the host threads (no "
                 "predecessor the device could pick)",
                 method, m->name, on_host, count);
}

/* Whether the rows' type holds the graph by its per-weight rule, as Floyd-Warshall needs: int32
 * rows may rest on the path bound alone (check_graph). */
static int rows_take_fw(const apsp_graph *graph, apsp_dtype dtype) {
    weight_rule rule = weight_rule_for(graph->vertices, APSP_INT32);
    return dtype != APSP_INT32 || graph_largest_weight(graph) <= (uint64_t)rule.most;
}

/* The method and the run, the adjacency built once. */
static apsp_status solve_sources(apsp_solver *solver, const apsp_graph *graph,
                                 const int32_t *sources, size_t count, apsp_method method,
                                 const sources_out *out, apsp_report *report, apsp_error *error) {
    const apsp_options *o = solver_options(solver);
    adjacency adj;
    apsp_status status = adjacency_build(graph, 0, threads_of(o->threads), &adj, error);
    if (status != APSP_OK)
        return status; /* (freed) */
    if (adj.real && (out->dtype == APSP_INT32 || out->dtype == APSP_INT64))
        status = adjacency_as_integers(&adj, error);
    if (status != APSP_OK) {
        adjacency_free(&adj);
        return status;
    }
    device_method device;
    device_johnson johnson;
    char declined[sizeof report->device_declined], johnson_declined[sizeof declined];
    backend_device *on = solver_device(solver);
    int has_device = device_method_find(on, &adj, out->dtype, out->pred != NULL, &device, declined,
                                        sizeof declined);
    int has_johnson = device_johnson_find(on, &adj, out->pred != NULL, &johnson, johnson_declined,
                                          sizeof johnson_declined);
    size_t v = graph->vertices, e = adj.start[v], cell = apsp_dtype_size(out->dtype);
    size_t csr = 4 * (v + 1) + (4 + cell) * e;
    method_inputs in = {.vertices = v,
                        .edges = e,
                        .sources = count,
                        .negative = graph_has_negative(graph),
                        .threads = sources_worker_count(o),
                        .device = has_device ? &device.costs : NULL,
                        .johnson_device = has_johnson ? &johnson.search.costs : NULL,
                        .graph_bytes = (double)csr * (out->pred ? 2 : 1),
                        .row_bytes = (double)v * (double)(cell + (out->pred ? 4 : 0)),
                        .wide = cell == 8,
                        .fw_fits = rows_take_fw(graph, out->dtype)};
    apsp_method chosen = APSP_METHOD_AUTO;
    int on_device = 0, described = 0; /* described: the device's run wrote report->method */
    char why[sizeof report->method];
    status = method_choose(method, &in, &chosen, &on_device, why, sizeof why, error);
    if (status == APSP_OK)
        status = check_declined(o, method, chosen, on_device,
                                declined_for(method, chosen, in.negative, has_device || declined[0],
                                             declined, johnson_declined),
                                report, error);
    double start = seconds_now();
    if (status == APSP_OK && chosen == APSP_METHOD_FW) {
        adjacency_free(&adj); /* the matrix takes its room */
        adj = (adjacency){0};
        status = run_fw(solver, graph, sources, count, out, report, error);
    } else if (status == APSP_OK && on_device && chosen == APSP_METHOD_JOHNSON) {
        status = device_johnson_run(&johnson, &adj, sources, count, o, out, error);
        described = report_johnson(&johnson, o, seconds_now() - start, why, report);
        if (described)
            note_on_host(status, "johnson", &johnson.search, johnson.on_host, count, report);
    } else if (status == APSP_OK && on_device) {
        status = run_on_device(&device, &adj, sources, count, o, out, error);
        report->compute_seconds = seconds_now() - start;
        device_method_describe(&device, why, report);
        described = 1;
        note_on_host(status, "bellman-ford", &device, device.on_host, count, report);
    } else if (status == APSP_OK) {
        char width[128] = "";
        status = sources_run_on_threads(&adj, chosen, sources, count, o, out, width, sizeof width,
                                        error);
        report_threads(report, o, seconds_now() - start, width);
    }
    adjacency_free(&adj);
    if (status == APSP_OK && chosen != APSP_METHOD_FW) /* (Floyd-Warshall's solve says its own) */
        note_own_kernels(report, out->dtype);
    if (status == APSP_OK && !described)
        snprintf(report->method, sizeof report->method, "%s", why);
    return status;
}

/* An apsp_cells_fn handing int32 cells on to the caller's apsp_rows_fn (the int32 entry points
 * below). */
typedef struct int32_rows {
    apsp_rows_fn rows;
    void *context;
} int32_rows;

static apsp_status cells_as_int32(void *context, size_t first_row, size_t count, const void *rows,
                                  size_t pitch, apsp_error *error) {
    const int32_rows *to = context;
    return to->rows(to->context, first_row, count, rows, pitch, error);
}

apsp_status apsp_solver_solve_sources(apsp_solver *solver, const apsp_graph *graph,
                                      const int32_t *sources, size_t count, apsp_method method,
                                      apsp_rows_fn rows, void *context, apsp_report *report,
                                      apsp_error *error) {
    return apsp_solver_solve_sources_paths(solver, graph, sources, count, method, rows, context,
                                           NULL, NULL, report, error);
}

apsp_status apsp_solver_solve_sources_paths(apsp_solver *solver, const apsp_graph *graph,
                                            const int32_t *sources, size_t count,
                                            apsp_method method, apsp_rows_fn rows, void *context,
                                            apsp_rows_fn pred, void *pred_context,
                                            apsp_report *report, apsp_error *error) {
    int32_rows to = {rows, context};
    return apsp_solver_solve_sources_typed(solver, graph, sources, count, method, APSP_INT32,
                                           rows ? cells_as_int32 : NULL, &to, pred, pred_context,
                                           report, error);
}

/* The graph checked for the distances' type: int32's check also refuses real weights, and
 * takes a graph past its per-weight rule whose distances the path bound keeps below APSP_INF
 * (graph_int32_by_path_bound, after the endpoints' check of int64's). */
static apsp_status check_graph(const apsp_solver *solver, const apsp_graph *graph, apsp_dtype dtype,
                               apsp_error *error) {
    unsigned threads = threads_of(solver_options(solver)->threads);
    if ((unsigned)dtype > APSP_FLOAT64)
        return fail(error, APSP_ERR_USAGE, "dtype %d is not an apsp_dtype", (int)dtype);
    if (dtype != APSP_INT32)
        return graph_check_typed(graph, dtype, threads, error);
    apsp_status status = graph_check(graph, threads, error);
    apsp_error wide;
    if (status == APSP_ERR_USAGE && graph && !graph->real_weight &&
        graph_check_typed(graph, APSP_INT64, threads, &wide) == APSP_OK &&
        graph_int32_by_path_bound(graph, threads))
        return APSP_OK;
    return status;
}

apsp_status apsp_solver_solve_sources_idle(apsp_solver *solver, const apsp_graph *graph,
                                           const int32_t *sources, size_t count, apsp_method method,
                                           apsp_dtype dtype, apsp_cells_fn rows, void *context,
                                           apsp_rows_fn pred, void *pred_context,
                                           const apsp_idle_work *idle, apsp_report *report,
                                           apsp_error *error) {
    const sources_out out = {.dtype = dtype,
                             .rows = rows,
                             .context = context,
                             .pred = pred,
                             .pred_context = pred_context,
                             .idle = solver && solver_overlaps(solver) ? idle : NULL};
    apsp_report ignored;
    report = report ? report : &ignored;
    memset(report, 0, sizeof *report);
    if (!solver || !graph || !rows)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_solver_solve_sources: no solver, graph or rows function");
    apsp_status status = check_graph(solver, graph, dtype, error);
    int32_t *all = NULL;
    if (status == APSP_OK && !sources) {
        count = graph->vertices;
        sources = all = every_vertex(count);
        if (!all)
            status = fail(error, APSP_ERR_NO_MEMORY, "sources: out of memory");
    }
    if (status == APSP_OK)
        status = check_sources(sources, count, graph->vertices, error);
    if (status == APSP_OK)
        status = solve_sources(solver, graph, sources, count, method, &out, report, error);
    add_open_time_to_report(solver, report); /* (Floyd-Warshall's solve took it already) */
    free(all);
    return status;
}

apsp_status apsp_solver_solve_sources_typed(apsp_solver *solver, const apsp_graph *graph,
                                            const int32_t *sources, size_t count,
                                            apsp_method method, apsp_dtype dtype,
                                            apsp_cells_fn rows, void *context, apsp_rows_fn pred,
                                            void *pred_context, apsp_report *report,
                                            apsp_error *error) {
    return apsp_solver_solve_sources_idle(solver, graph, sources, count, method, dtype, rows,
                                          context, pred, pred_context, NULL, report, error);
}
