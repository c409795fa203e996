/* The library's entry points that span backends: listing devices, the solver instance, and the
 * one-shot solve. */
#include "devices/backends.h"
#include "solver/hand_on.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "drivers/drivers.h"
#include "whole/whole_floats.h"
#include "whole/whole_graph.h"
#include "solver/solver.h"
#include "sssp/method.h"
#include "base/element_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

apsp_status apsp_list_devices(apsp_device_info **devices, size_t *count, apsp_error *error) {
    device_list list;
    apsp_status status = devices_collect(&list, APSP_BACKEND_AUTO, error);
    *devices = status == APSP_OK ? list.items : NULL;
    *count = status == APSP_OK ? list.count : 0;
    return status;
}

/* The backends whose devices the selection needs listed, and why (s->choice). Listing OpenCL
 * loads every platform, which costs more than a small solve: the pthread backend alone is
 * listed when it was asked for with no device named, or in auto mode for a small graph. A named
 * device needs the whole list, whose indices --list-devices shows. */
static apsp_backend_kind backends_to_list(apsp_solver *s) {
    const apsp_options *o = &s->options;
    int named = o->device && *o->device;
    if (o->backend == APSP_BACKEND_CPU && !named) {
        snprintf(s->choice, sizeof s->choice, "--backend=cpu");
        return APSP_BACKEND_CPU;
    }
    /* (chosen sources: their Dijkstra's estimate, not Floyd-Warshall's) */
    double estimate = o->sources_hint
                          ? method_dijkstra_seconds(o->vertices_hint, o->edges_hint,
                                                    o->sources_hint, threads_of(o->threads))
                          : backends_find(APSP_BACKEND_CPU)->estimated_seconds(o, o->vertices_hint);
    if (o->backend == APSP_BACKEND_AUTO && !named && o->vertices_hint > 0 &&
        estimate < APSP_SMALL_GRAPH_SECONDS) {
        char sources[64] = "";
        if (o->sources_hint)
            snprintf(sources, sizeof sources, " from %zu sources, E = %zu,", o->sources_hint,
                     o->edges_hint);
        snprintf(s->choice, sizeof s->choice,
                 "auto: V = %zu%s takes about %.2g ms on the CPU threads, less than an OpenCL "
                 "device takes to start; no OpenCL platform loaded",
                 o->vertices_hint, sources, estimate * 1e3);
        return APSP_BACKEND_CPU;
    }
    return APSP_BACKEND_AUTO;
}

/* Why the whole list's selection is `first`, when backends_to_list did not say already; with no
 * GPU, why OpenCL offered none when that is known (no platform registered: a wheel installed
 * where no driver is), so that -v says once why the pthread backend runs. */
static void describe_choice(apsp_solver *s, const apsp_device_info *first,
                            const device_list *list) {
    const apsp_options *o = &s->options;
    if (s->choice[0])
        return;
    if (o->device && *o->device)
        snprintf(s->choice, sizeof s->choice, "-d %.160s", o->device);
    else if (strcmp(first->type, "gpu") == 0)
        snprintf(s->choice, sizeof s->choice, "%s: the first GPU", apsp_backend_name(o->backend));
    else
        snprintf(s->choice, sizeof s->choice, "%s: no GPU%s%.150s", apsp_backend_name(o->backend),
                 list->missing[0] ? "; " : "", list->missing);
}

/* Opens the devices the options select, together. */
static apsp_status open_selected(apsp_solver *s, apsp_error *error) {
    device_list list;
    apsp_backend_kind listed = backends_to_list(s);
    s->opencl_listed = listed != APSP_BACKEND_CPU;
    apsp_status status = devices_collect(&list, listed, error);
    if (status != APSP_OK)
        return status;
    const apsp_device_info *chosen[MAX_DEVICES];
    size_t count;
    status = devices_select(&list, s->options.backend, s->options.device, chosen, &count, error);
    if (status == APSP_OK) {
        describe_choice(s, chosen[0], &list);
        const apsp_backend_impl *impl = backend_for(chosen[0]);
        status =
            impl ? impl->open(chosen, count, &s->options, s->devices, error)
                 : fail(error, APSP_ERR_INTERNAL, "no backend runs device %d", chosen[0]->index);
    }
    if (status == APSP_OK)
        s->count = count;
    device_list_free(&list);
    return status;
}

apsp_status apsp_solver_create(const apsp_options *options, apsp_solver **out, apsp_error *error) {
    double start = seconds_now();
    *out = NULL;
    apsp_solver *s = apsp_calloc(1, sizeof *s);
    if (!s)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory creating a solver");
    if (options)
        s->options = *options;
    else
        apsp_options_init(&s->options);
    apsp_status status = open_selected(s, error);
    if (status != APSP_OK) {
        apsp_solver_destroy(s);
        return status;
    }
    s->off_host = s->count > 0;
    for (size_t i = 0; i < s->count; i++) {
        device_summary summary;
        s->devices[i]->impl->summarize(s->devices[i], &summary);
        s->open_builds += summary.program_builds;
        s->off_host &= !summary.on_host;
    }
    s->open_seconds = seconds_now() - start;
    *out = s;
    return APSP_OK;
}

const apsp_options *solver_options(const apsp_solver *s) {
    return &s->options;
}

backend_device *solver_device(const apsp_solver *s) {
    return s->count ? s->devices[0] : NULL;
}

void add_open_to_report(apsp_solver *s, apsp_report *report) {
    if (!report)
        return;
    snprintf(report->choice, sizeof report->choice, "%s", s->choice);
    add_open_time_to_report(s, report);
}

void add_open_time_to_report(apsp_solver *s, apsp_report *report) {
    if (!report)
        return;
    report->opencl_listed = s->opencl_listed;
    report->setup_seconds += s->open_seconds;
    report->program_builds += s->open_builds;
    s->open_seconds = 0;
    s->open_builds = 0;
}

void note_own_kernels(apsp_report *report, apsp_dtype dtype) {
    if (!report)
        return;
    report->kernels = dtype;
    snprintf(report->kernels_why, sizeof report->kernels_why, "%s distances",
             apsp_dtype_name(dtype));
}

/* Whether host work may run beside the rounds (apsp_options.overlap): devices off the host, or
 * any OpenCL device when asked for. */
int solver_overlaps(const apsp_solver *s) {
    int overlap = s->options.overlap;
    return overlap >= 0 &&
           (s->off_host || (overlap > 0 && s->devices[0]->impl->kind == APSP_BACKEND_OPENCL));
}

/* A checked matrix through the devices in its own type: streamed, or by rows (its cells'
 * check skipped when `known` says what it would find: drivers.h). While devices off the host
 * run their rounds, the host's cores are idle: the rows' io->prepare runs then (apsp_rows.h). A
 * streamed solve runs no io->prepare, as apsp_row_io promises (the host moves blocks then); the
 * graph path's idle work does run beside one (solve_graph_on_host). */
static apsp_status solve_in_type(apsp_solver *s, apsp_matrix *matrix, const cell_facts *known,
                                 const apsp_row_io *rows, apsp_report *report, apsp_error *error) {
    const apsp_row_io *idle = solver_overlaps(s) ? rows : NULL;
    apsp_status status;
    if (drive_takes_small(s->devices, s->count, matrix))
        status = drive_small(s->devices[0], matrix, known, &s->options, report, error);
    else if (drive_streams(s->devices, s->count, matrix->n, matrix->dtype))
        status = drive_stream(s->devices[0], matrix, &s->options, report, error);
    else
        status = drive_rows(s->devices, s->count, matrix, known, idle, &s->options, report, error);
    if (status == APSP_OK)
        add_open_to_report(s, report);
    return status;
}

static whole_job whole_job_of(apsp_solver *s);

apsp_status apsp_solver_solve(apsp_solver *s, apsp_matrix *matrix, apsp_report *report,
                              apsp_error *error) {
    if (report)
        memset(report, 0, sizeof *report);
    if (!s)
        return fail(error, APSP_ERR_USAGE, "apsp_solver_solve: no solver");
    apsp_status checked = matrix_check_shape(matrix, error);
    if (checked != APSP_OK)
        return checked;
    /* A float matrix's -0 cells are made +0 before the float path (src/whole/), so that the
     * float kernels' fmin and compare-and-select agree (cl/fw.cl: FLOAT_FMIN). */
    if (element_is_real(matrix->dtype)) {
        const whole_job job = whole_job_of(s);
        return whole_floats_solve(s, matrix, &job, report, error);
    }
    apsp_status status = solve_in_type(s, matrix, NULL, NULL, report, error);
    if (status == APSP_OK)
        note_own_kernels(report, matrix->dtype);
    return status;
}

/* The matrix kept in *kept when it has n vertices of `dtype` (its padding as made: a successful
 * solve leaves it so), else a new one from the solver. */
static apsp_status take_kept(apsp_solver *s, size_t n, apsp_dtype dtype, apsp_matrix **kept,
                             apsp_error *error) {
    if (*kept && (*kept)->n == n && (*kept)->dtype == dtype)
        return APSP_OK;
    apsp_matrix_destroy(*kept); /* before the new one: pinned memory is scarce */
    *kept = NULL;
    return apsp_solver_matrix_create(s, n, dtype, kept, error);
}

/* The rows into the solver's matrix of their type, solved in that type, and written back. */
static apsp_status solve_rows_in_type(apsp_solver *s, size_t n, apsp_dtype dtype,
                                      const apsp_row_io *io, apsp_report *report,
                                      apsp_error *error) {
    const unsigned threads = threads_of(s->options.threads);
    double start = seconds_now();
    apsp_status status = take_kept(s, n, dtype, &s->rows, error);
    if (status != APSP_OK)
        return status;
    /* (-0 made +0: as apsp_solver_solve does; an integer matrix checked as it is read) */
    cell_facts facts;
    const int known = matrix_read_rows_known(s->rows, io, threads, &facts);
    double read = seconds_now() - start;
    status = solve_in_type(s, s->rows, known ? &facts : NULL, io, report, error);
    if (status != APSP_OK) { /* a failed solve may leave the padding other than made */
        apsp_matrix_destroy(s->rows);
        s->rows = NULL;
        return status;
    }
    start = seconds_now();
    matrix_write_rows(s->rows, io, threads);
    note_own_kernels(report, dtype);
    if (report) {
        report->rows_in_seconds = read;
        report->rows_out_seconds = seconds_now() - start;
    }
    return APSP_OK;
}

static whole_job whole_job_of(apsp_solver *s) {
    return (whole_job){s->options.float_kernels,
                       threads_of(s->options.threads),
                       solve_in_type,
                       solve_rows_in_type,
                       take_kept,
                       &s->whole};
}

apsp_status apsp_solver_solve_rows(apsp_solver *s, size_t n, apsp_dtype dtype,
                                   const apsp_row_io *io, apsp_report *report, apsp_error *error) {
    if (report)
        memset(report, 0, sizeof *report);
    if (!s || !io || !io->read || !io->write || n == 0 || (unsigned)dtype > APSP_FLOAT64)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_solver_solve_rows: no solver, no row functions, no vertices or no type");
    apsp_status status = matrix_fits_memory_typed(n, dtype, error);
    if (status != APSP_OK)
        return status;
    if (element_is_real(dtype)) {
        const whole_job job = whole_job_of(s);
        return whole_floats_solve_rows(s, n, dtype, io, &job, report, error);
    }
    return solve_rows_in_type(s, n, dtype, io, report, error);
}

/* A float matrix on the float kernels without the whole-number scan: the edges decided it. */
static apsp_status solve_float_path(apsp_solver *s, apsp_matrix *matrix, apsp_report *report,
                                    apsp_error *error) {
    if (report)
        memset(report, 0, sizeof *report);
    whole_job job = whole_job_of(s);
    job.float_kernels = 1;
    return whole_floats_solve(s, matrix, &job, report, error);
}

/* A graph made into a host matrix of `dtype`, solved (by apsp_solver_solve, or by the float
 * path alone), and its rows handed on. While devices off the host solve it, the caller's idle
 * work (apsp_solver_solve_graph_idle) runs beside them, as on the graph's own path: a streamed
 * solve too, whose host threads only copy blocks to and from the pinned staging, in short
 * bursts, while the device computes for most of its rounds (docs/performance.md, "Streaming:
 * the output prepared beside the super-rounds"). */
static apsp_status solve_graph_on_host(apsp_solver *s, const apsp_graph *graph, apsp_dtype dtype,
                                       int float_path, apsp_cells_fn cells, void *context,
                                       apsp_report *report, apsp_error *error) {
    apsp_matrix *m;
    apsp_status status = apsp_graph_to_matrix_threads(graph, dtype, s->options.threads, &m, error);
    int idle = status == APSP_OK && solver_overlaps(s);
    unsigned idle_threads =
        idle && drive_streams(s->devices, s->count, m->n, dtype) ? APSP_IDLE_THREADS_STREAMED : 0;
    beside helper;
    beside_start_threads(&helper, idle ? s->idle : NULL, idle_threads);
    if (status == APSP_OK)
        status = float_path ? solve_float_path(s, m, report, error)
                            : apsp_solver_solve(s, m, report, error);
    double overlapped = beside_finish(&helper, seconds_now());
    if (report)
        report->overlapped_seconds += overlapped;
    double start = seconds_now();
    if (status == APSP_OK)
        status = hand_on_matrix(m, cells, context, error);
    if (status == APSP_OK && report) /* as a device's rows would have come down */
        report->download_seconds += seconds_now() - start;
    apsp_matrix_destroy(m);
    return status;
}

/* Whether the solver's devices make the graph's matrix of `dtype` from its edges (drive_graph);
 * a solve that streams keeps it on the host. */
static int graph_on_device(apsp_solver *s, const apsp_graph *graph, apsp_dtype dtype) {
    return drive_takes_graphs(s->devices[0], dtype) &&
           !drive_streams(s->devices, s->count, graph->vertices, dtype);
}

/* The graph's matrix of `dtype` made on the devices from its edges, solved there in that type
 * (the kernels, checks and bytes of solve_in_type's for the host matrix) and its rows handed to
 * `cells` as they come down, the caller's idle work beside the rounds. */
static apsp_status solve_graph_on_device(apsp_solver *s, const apsp_graph *graph, apsp_dtype dtype,
                                         apsp_cells_fn cells, void *context, apsp_report *report,
                                         apsp_error *error) {
    apsp_status status =
        drive_graph(s->devices, s->count, graph, dtype, cells, context,
                    solver_overlaps(s) ? s->idle : NULL, &s->options, report, error);
    if (status == APSP_OK)
        add_open_to_report(s, report);
    return status;
}

/* whole_graph_matrix_fn: the float path (float_path 1) on the devices' own matrix where they make
 * it, else a host matrix. */
static apsp_status solve_graph_matrix(apsp_solver *s, const apsp_graph *graph, apsp_dtype dtype,
                                      int float_path, apsp_cells_fn cells, void *context,
                                      apsp_report *report, apsp_error *error) {
    if (float_path && graph_on_device(s, graph, dtype))
        return solve_graph_on_device(s, graph, dtype, cells, context, report, error);
    return solve_graph_on_host(s, graph, dtype, float_path, cells, context, report, error);
}

apsp_status apsp_solver_solve_graph(apsp_solver *s, const apsp_graph *graph, apsp_rows_fn rows,
                                    void *context, apsp_report *report, apsp_error *error) {
    if (report)
        memset(report, 0, sizeof *report);
    if (!s || !rows)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_solver_solve_graph: no solver or no rows function");
    apsp_status status = graph_check(graph, threads_of(s->options.threads), error);
    if (status != APSP_OK)
        return status;
    rows_as_cells r = {.rows = rows, .context = context};
    /* Where the backend's memory is the host (or the solve streams from it): a matrix there. */
    status = graph_on_device(s, graph, APSP_INT32)
                 ? solve_graph_on_device(s, graph, APSP_INT32, cells_to_rows, &r, report, error)
                 : solve_graph_on_host(s, graph, APSP_INT32, 0, cells_to_rows, &r, report, error);
    if (status == APSP_OK)
        note_own_kernels(report, APSP_INT32);
    return status;
}

apsp_status apsp_solver_solve_graph_typed(apsp_solver *s, const apsp_graph *graph, apsp_dtype dtype,
                                          apsp_cells_fn cells, void *context, apsp_report *report,
                                          apsp_error *error) {
    if (report)
        memset(report, 0, sizeof *report);
    if (!s || !cells || (unsigned)dtype > APSP_FLOAT64)
        return fail(error, APSP_ERR_USAGE,
                    "apsp_solver_solve_graph_typed: no solver, no cells function or no type");
    rows_as_cells r = {.cells = cells, .context = context};
    if (dtype == APSP_INT32)
        return apsp_solver_solve_graph(s, graph, rows_to_cells, &r, report, error);
    /* (the type's own refusals first, whichever route then runs) */
    apsp_status status = graph_check_typed(graph, dtype, threads_of(s->options.threads), error);
    if (status != APSP_OK)
        return status;
    if (dtype == APSP_INT64 && graph_on_device(s, graph, dtype)) {
        status = solve_graph_on_device(s, graph, dtype, cells, context, report, error);
        if (status == APSP_OK)
            note_own_kernels(report, dtype);
        return status;
    }
    if (dtype == APSP_INT64)
        return solve_graph_on_host(s, graph, dtype, 0, cells, context, report, error);
    const whole_graph_job job = {s->options.float_kernels, threads_of(s->options.threads),
                                 solve_graph_matrix, apsp_solver_solve_graph,
                                 s->idle ? s->idle->int32_cells : NULL};
    return whole_graph_solve(s, graph, dtype, cells, context, &job, report, error);
}

apsp_status apsp_solver_solve_graph_idle(apsp_solver *s, const apsp_graph *graph, apsp_dtype dtype,
                                         apsp_cells_fn cells, void *context,
                                         const apsp_idle_work *idle, apsp_report *report,
                                         apsp_error *error) {
    if (s)
        s->idle = idle;
    apsp_status status =
        apsp_solver_solve_graph_typed(s, graph, dtype, cells, context, report, error);
    if (s)
        s->idle = NULL;
    return status;
}

apsp_status apsp_solver_check_typed(apsp_solver *s, size_t vertices, apsp_dtype dtype,
                                    apsp_error *error) {
    if (!s || vertices == 0)
        return fail(error, APSP_ERR_USAGE, "apsp_solver_check: no solver, or no vertices");
    int streams = drive_streams(s->devices, s->count, vertices, dtype);
    /* Where the matrix lives in host memory (the pthread backend, a streamed solve), it must fit
     * there too: said now, before the input is read or the output begun. */
    int on_host = streams || dtype != APSP_INT32 || !drive_takes_graphs(s->devices[0], dtype);
    apsp_status status = on_host ? matrix_fits_memory_typed(vertices, dtype, error) : APSP_OK;
    uint64_t staging = 0; /* a streamed solve's pinned host memory beside the matrix */
    if (status == APSP_OK && streams)
        status = drive_stream_check(s->devices[0], vertices, dtype, &s->options, &staging, error);
    else if (status == APSP_OK)
        status = drive_check(s->devices, s->count, vertices, dtype, &s->options, error);
    /* And in what is free now (the devices' checks first: they say what streaming stages). */
    if (status == APSP_OK && on_host)
        status =
            matrix_fits_room(vertices, dtype, staging, "the pinned staging to stream it", error);
    return status;
}

apsp_status apsp_solver_check(apsp_solver *s, size_t vertices, apsp_error *error) {
    return apsp_solver_check_typed(s, vertices, APSP_INT32, error);
}

apsp_status apsp_solver_matrix_create(apsp_solver *s, size_t n, apsp_dtype dtype, apsp_matrix **out,
                                      apsp_error *error) {
    *out = NULL;
    if (!s)
        return fail(error, APSP_ERR_USAGE, "apsp_solver_matrix_create: no solver");
    const unsigned threads = threads_of(s->options.threads);
    const apsp_backend_impl *impl = s->devices[0]->impl;
    if (!impl->device_memory) /* (which checks the memory itself) */
        return matrix_create_threads(n, dtype, threads, out, error);
    apsp_status status = matrix_fits_host(n, dtype, error); /* pinned memory is host memory too */
    if (status != APSP_OK)
        return status;
    /* Several devices of one context share its pinned memory: the first device's will do. */
    void *cells = NULL;
    struct apsp_matrix_owner *owner = NULL;
    status = impl->device_memory->host_memory(
        s->devices[0], (size_t)apsp_matrix_bytes_typed(n, dtype), &cells, &owner, error);
    if (status != APSP_OK)
        return status;
    return cells ? matrix_create_in(n, dtype, cells, owner, threads, out, error)
                 : matrix_create_threads(n, dtype, threads, out, error);
}

void apsp_solver_destroy(apsp_solver *s) {
    if (!s)
        return;
    apsp_matrix_destroy(s->whole);
    apsp_matrix_destroy(s->rows);
    for (size_t i = 0; i < s->count; i++)
        s->devices[i]->impl->close(s->devices[i]);
    free(s);
}

apsp_status apsp_solve(apsp_matrix *matrix, const apsp_options *options, apsp_report *report,
                       apsp_error *error) {
    apsp_solver *solver;
    if (report)
        memset(report, 0, sizeof *report);
    apsp_status status = apsp_solver_create(options, &solver, error);
    if (status == APSP_OK)
        status = apsp_solver_solve(solver, matrix, report, error);
    apsp_solver_destroy(solver);
    return status;
}
