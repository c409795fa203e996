/* The matrix's rows over one or more devices of one backend (docs/design/solve.md, "The round-level
 * interface").
 *
 * Each device holds a contiguous share of the rows, in proportion to its speed, for the whole
 * solve. Per round, the owner of the pivot rows closes them (close_pivot) and hands the panel
 * to the others (get_row_panel, put_row_panel); every device relaxes its own rows.
 *
 * Look-ahead, with several devices: the owner of round r + 1's pivot rows relaxes those rows of
 * round r first, closes them and hands them out, and only then relaxes the rest of its rows, so
 * that the panel travels while every device runs round r's phase 3. The backends order the
 * transfers on the devices with events; the host queues ahead and waits only for progress and
 * at the end. One device does the plain order, which has nothing to hide. */
#include "devices/backends.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/graph.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "drivers/drivers.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* With progress or a cancel function, round r is waited on when round r + PROGRESS_LAG has been
 * queued: the devices stay busy while the caller reports, and a cancelled solve stops within
 * PROGRESS_LAG rounds of the request instead of after every queued round. */
enum { PROGRESS_LAG = 4 };

/* Devices of one backend, each carrying its table (backend.h: backend_device). */
typedef struct team {
    backend_device *const *devices;
    size_t count;
    const apsp_options *options;
    solve_geometry geometry;
    size_t begin[MAX_DEVICES + 1]; /* device i holds rows [begin[i], begin[i + 1]) */
} team;

/* One geometry for every device: the same round depth, n and the shares in units of all. */
static apsp_status plan_team(team *t, size_t vertices, apsp_dtype dtype, apsp_error *error) {
    solve_geometry *g = &t->geometry;
    for (size_t i = 0; i < t->count; i++) {
        solve_geometry own;
        apsp_status status = t->devices[i]->impl->plan(t->devices[i], vertices, dtype, &own, error);
        if (status != APSP_OK)
            return status;
        if (i > 0 && own.tile != g->tile)
            return fail(error, APSP_ERR_USAGE,
                        "the devices need different round depths (%zu and %zu): choose one "
                        "with --tile",
                        g->tile, own.tile);
        if (i == 0)
            *g = own;
        g->row_unit = least_common_multiple(g->row_unit, own.row_unit);
        g->col_unit =
            least_common_multiple(least_common_multiple(g->col_unit, own.col_unit), g->row_unit);
    }
    g->n = (vertices + g->col_unit - 1) / g->col_unit * g->col_unit;
    return APSP_OK;
}

/* The weights of options->device_shares, one positive number per device. */
static apsp_status parse_shares(const team *t, double *weight, apsp_error *error) {
    const char *text = t->options->device_shares;
    char *end = (char *)text;
    size_t i = 0;
    for (; i < t->count && *end; i++) {
        const char *start = i == 0 ? text : end + 1;
        weight[i] = strtod(start, &end);
        if (end == start || !(weight[i] > 0) || (*end != ',' && *end != '\0'))
            break;
    }
    if (i != t->count || *end != '\0')
        return fail(error, APSP_ERR_USAGE,
                    "--device-shares=%s: expected %zu positive numbers separated by commas, one "
                    "per device",
                    text, t->count);
    return APSP_OK;
}

/* Shares of whole row units in proportion to the devices' weights: the options' or their
 * estimated speeds. */
static apsp_status share_rows(team *t, apsp_error *error) {
    const size_t units = t->geometry.n / t->geometry.row_unit;
    double speed[MAX_DEVICES], total = 0, before = 0;
    if (t->options->device_shares) {
        apsp_status status = parse_shares(t, speed, error);
        if (status != APSP_OK)
            return status;
    } else {
        for (size_t i = 0; i < t->count; i++)
            speed[i] = t->devices[i]->impl->speed(t->devices[i]);
    }
    for (size_t i = 0; i < t->count; i++)
        total += speed[i];
    for (size_t i = 0; i < t->count; i++) {
        t->begin[i] = (size_t)((double)units * before / total + 0.5) * t->geometry.row_unit;
        before += speed[i];
    }
    t->begin[t->count] = t->geometry.n;
    return APSP_OK;
}

static int holds_rows(const team *t, size_t i) {
    return t->begin[i] < t->begin[i + 1];
}

/* The device that holds round r's pivot rows. */
static size_t owner_of(const team *t, size_t round) {
    size_t row = round * t->geometry.tile, i = 0;
    while (row >= t->begin[i + 1])
        i++;
    return i;
}

/* Round r's closed panel from its owner into every other device that holds rows. */
static apsp_status hand_out(const team *t, size_t round, size_t owner, apsp_error *error) {
    if (t->count == 1)
        return APSP_OK;
    panel_handoff handoff;
    apsp_status status =
        t->devices[owner]->impl->get_row_panel(t->devices[owner], round, &handoff, error);
    for (size_t i = 0; i < t->count && status == APSP_OK; i++)
        if (i != owner && holds_rows(t, i))
            status = t->devices[i]->impl->put_row_panel(t->devices[i], round, &handoff, error);
    return status;
}

/* Round r on device i's rows; with look-ahead, the next pivot rows' unit first, then round
 * r + 1's pivot closed and handed out, then the rest. */
static apsp_status relax_device(const team *t, size_t i, size_t round, apsp_error *error) {
    backend_device *d = t->devices[i];
    const apsp_backend_impl *impl = d->impl;
    const size_t rounds = t->geometry.n / t->geometry.tile;
    if (t->count == 1 || round + 1 >= rounds || owner_of(t, round + 1) != i)
        return impl->relax(d, round, t->begin[i], t->begin[i + 1], error);
    const size_t unit = t->geometry.row_unit;
    const size_t first = (round + 1) * t->geometry.tile / unit * unit, last = first + unit;
    apsp_status status = impl->relax(d, round, first, last, error);
    if (status == APSP_OK)
        status = impl->close_pivot(d, round + 1, error);
    if (status == APSP_OK)
        status = hand_out(t, round + 1, i, error);
    if (status == APSP_OK)
        status = impl->relax(d, round, t->begin[i], first, error);
    if (status == APSP_OK)
        status = impl->relax(d, round, last, t->begin[i + 1], error);
    return status;
}

static apsp_status wait_for_round(const team *t, size_t round, apsp_error *error) {
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < t->count && status == APSP_OK; i++)
        if (holds_rows(t, i))
            status = t->devices[i]->impl->wait_round(t->devices[i], round, error);
    return status;
}

/* Whether the caller watches the rounds: a progress display or a cancel function. */
static int watched(const team *t) {
    return t->options->progress || t->options->cancelled;
}

/* Round r done: reported, then the caller asked whether to go on. */
static apsp_status report_round(const team *t, size_t round, size_t rounds, apsp_error *error) {
    const apsp_options *o = t->options;
    apsp_status status = wait_for_round(t, round, error);
    if (status == APSP_OK && o->progress)
        o->progress(o->progress_context, round + 1, rounds);
    if (status == APSP_OK && o->cancelled && round + 1 < rounds && o->cancelled(o->cancel_context))
        status = fail(error, APSP_ERR_CANCELLED, "the solve was cancelled after round %zu of %zu",
                      round + 1, rounds);
    return status;
}

static apsp_status run_rounds(const team *t, apsp_error *error) {
    const size_t rounds = t->geometry.n / t->geometry.tile;
    const size_t first_owner = owner_of(t, 0);
    apsp_status status =
        t->devices[first_owner]->impl->close_pivot(t->devices[first_owner], 0, error);
    if (status == APSP_OK)
        status = hand_out(t, 0, first_owner, error);
    size_t reported = 0;
    for (size_t r = 0; r < rounds && status == APSP_OK; r++) {
        /* With one device, the pivot of every round after the first is closed here. */
        if (t->count == 1 && r > 0)
            status = t->devices[0]->impl->close_pivot(t->devices[0], r, error);
        /* The next round's owner first: its look-ahead hands the panel out early. */
        const size_t next = r + 1 < rounds ? owner_of(t, r + 1) : 0;
        for (size_t k = 0; k < t->count && status == APSP_OK; k++) {
            size_t i = (next + k) % t->count;
            if (holds_rows(t, i))
                status = relax_device(t, i, r, error);
        }
        if (status == APSP_OK && watched(t) && r >= PROGRESS_LAG)
            status = report_round(t, reported++, rounds, error);
    }
    while (status == APSP_OK && watched(t) && reported < rounds)
        status = report_round(t, reported++, rounds, error);
    /* The rounds' time is the compute time: wait for the last one before the download. */
    if (status == APSP_OK && rounds > 0)
        status = wait_for_round(t, rounds - 1, error);
    return status;
}

/* "NAME" for one device; "2 devices: NAME rows 0-20095 (50%), ..." for several. */
static void describe_team(const team *t, apsp_report *report) {
    device_summary summary;
    size_t used = 0;
    const size_t size = sizeof report->device;
    if (t->count > 1)
        used += (size_t)snprintf(report->device, size, "%zu devices: ", t->count);
    for (size_t i = 0; i < t->count; i++) {
        t->devices[i]->impl->summarize(t->devices[i], &summary);
        report->program_builds += summary.program_builds;
        size_t rows = t->begin[i + 1] - t->begin[i];
        if (t->count == 1)
            snprintf(report->device, size, "%s", summary.device);
        else if (used < size && rows == 0)
            used += (size_t)snprintf(report->device + used, size - used, "%s%s no rows",
                                     i ? ", " : "", summary.device);
        else if (used < size)
            used +=
                (size_t)snprintf(report->device + used, size - used, "%s%s rows %zu-%zu (%.0f%%)",
                                 i ? ", " : "", summary.device, t->begin[i], t->begin[i + 1] - 1,
                                 100.0 * (double)rows / (double)t->geometry.n);
        if (i == 0) {
            report->tile = summary.tile;
            report->threads = summary.threads;
        }
    }
    report->devices = (int)t->count;
    report->padded = t->geometry.n;
}

static apsp_status prepare_team(const team *t, apsp_error *error) {
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < t->count && status == APSP_OK; i++)
        if (holds_rows(t, i))
            status = t->devices[i]->impl->prepare(t->devices[i], &t->geometry, t->begin[i],
                                                  t->begin[i + 1], error);
    return status;
}

/* What a solve reads and writes: the caller's host matrix in place, or an edge list in and rows
 * handed on (each device makes its rows from the edges and hands them on in order). */
typedef struct solve_io {
    apsp_matrix *matrix;
    const apsp_graph *graph;
    apsp_dtype dtype; /* the graph's rows' type */
    apsp_cells_fn rows;
    void *context;
    paths_job *paths; /* the predecessors too, derived on the devices after store (or NULL) */
    const cell_facts *known;    /* the matrix's cells as its writer found them (NULL: checked) */
    const apsp_idle_work *idle; /* run beside the rounds (beside_start), or NULL */
} solve_io;

static apsp_status load_team(const team *t, const solve_io *io, apsp_error *error) {
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < t->count && status == APSP_OK; i++)
        if (holds_rows(t, i))
            status = io->matrix ? t->devices[i]->impl->load(t->devices[i], io->matrix, error)
                                : t->devices[i]->impl->device_memory->load_graph(t->devices[i],
                                                                                 io->graph, error);
    return status;
}

/* Rows handed on from a graph with negative weights: a negative diagonal cell is a negative
 * cycle (matrix_check_cycles), which stops the solve before that row is handed on. */
typedef struct cycle_watch {
    apsp_cells_fn rows;
    void *context;
    apsp_dtype dtype;
} cycle_watch;

static apsp_status watch_rows(void *context, size_t first_row, size_t count, const void *rows,
                              size_t pitch, apsp_error *error) {
    const cycle_watch *w = context;
    const size_t row_bytes = pitch * apsp_dtype_size(w->dtype);
    for (size_t r = 0; r < count; r++)
        if (cell_below_zero(w->dtype, (const char *)rows + r * row_bytes, first_row + r))
            return fail_negative_cycle(error, first_row + r);
    return w->rows(w->context, first_row, count, rows, pitch, error);
}

/* One device's rows handed on, on a thread of its own (store_together). */
typedef struct device_store {
    const team *t;
    size_t i;
    apsp_cells_fn rows;
    void *context;
    apsp_status status;
    apsp_error error;
    pthread_t thread;
    int started;
} device_store;

static void *store_one(void *context) {
    device_store *s = context;
    s->status = s->t->devices[s->i]->impl->device_memory->store_rows(s->t->devices[s->i], s->rows,
                                                                     s->context, &s->error);
    return NULL;
}

/* Every device's rows at once, each batch handed on as it comes down (the rows function takes
 * any order: apsp_idle_work.rows_in_any_order), so that no device waits for another's download
 * and write. The first device runs on the calling thread; one whose thread cannot start, after
 * the others. The failure of the first failing device is the solve's. */
static apsp_status store_together(const team *t, apsp_cells_fn rows, void *context,
                                  apsp_error *error) {
    device_store s[MAX_DEVICES];
    for (size_t i = 0; i < t->count; i++) {
        s[i] = (device_store){.t = t, .i = i, .rows = rows, .context = context};
        s[i].started = i > 0 && holds_rows(t, i) && !fault_hit(FAULT_ALLOC) &&
                       pthread_create(&s[i].thread, NULL, store_one, &s[i]) == 0;
    }
    for (size_t i = 0; i < t->count; i++)
        if (s[i].started)
            pthread_join(s[i].thread, NULL);
        else if (holds_rows(t, i))
            store_one(&s[i]);
    for (size_t i = 0; i < t->count; i++)
        if (s[i].status != APSP_OK) {
            if (error)
                *error = s[i].error;
            return s[i].status;
        }
    return APSP_OK;
}

/* Devices hold increasing ranges of rows, so handing them on device by device keeps the order;
 * a rows function that takes any order gets them from every device at once. */
static apsp_status store_team(const team *t, const solve_io *io, int negative, apsp_error *error) {
    cycle_watch watch = {io->rows, io->context, io->dtype};
    apsp_cells_fn rows = negative ? watch_rows : io->rows;
    void *context = negative ? &watch : io->context;
    if (!io->matrix && t->count > 1 && io->idle && io->idle->rows_in_any_order)
        return store_together(t, rows, context, error);
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < t->count && status == APSP_OK; i++)
        if (holds_rows(t, i))
            status = io->matrix ? t->devices[i]->impl->store(t->devices[i], io->matrix, error)
                                : t->devices[i]->impl->device_memory->store_rows(
                                      t->devices[i], rows, context, error);
    return status;
}

/* Each device's rows' predecessors, while its rows are still there (after store). */
static apsp_status derive_team(const team *t, paths_job *job, apsp_error *error) {
    apsp_status status = APSP_OK;
    for (size_t i = 0; i < t->count && status == APSP_OK; i++) {
        int untight = 0;
        if (holds_rows(t, i))
            status = t->devices[i]->impl->paths->derive(t->devices[i], job->csr, job->pred,
                                                        &untight, error);
        job->untight |= untight;
    }
    return status;
}

/* The team's geometry and shares for `vertices`, and room made on every device. */
static apsp_status arrange_team(team *t, size_t vertices, apsp_dtype dtype, apsp_error *error) {
    apsp_status status = plan_team(t, vertices, dtype, error);
    if (status == APSP_OK)
        status = share_rows(t, error);
    if (status == APSP_OK)
        status = prepare_team(t, error);
    return status;
}

/* Every device unloaded; after a success those with rows may keep them for a solve of the same
 * geometry (backend.h: unload), which a failure must not leave behind half-made. */
static void unload_team(const team *t, apsp_status status) {
    for (size_t i = 0; i < t->count; i++)
        t->devices[i]->impl->unload(t->devices[i], status == APSP_OK && holds_rows(t, i));
}

/* A check prepares as the solve would: a solve of the same geometry that follows it (the command
 * checks before reading its input) finds the device's buffers made. */
apsp_status drive_check(backend_device *const *devices, size_t count, size_t vertices,
                        apsp_dtype dtype, const apsp_options *options, apsp_error *error) {
    team t = {.devices = devices, .count = count, .options = options};
    apsp_status status = arrange_team(&t, vertices, dtype, error);
    unload_team(&t, status);
    return status;
}

/* kernel_form.bound (backend.h): (V - 1) * most when one device holds the matrix and
 * (V + n - 1) * most stays below the integer type's INF, else 0. */
static int64_t bound_of(const team *t, apsp_dtype dtype, uint64_t most) {
    uint64_t inf = dtype == APSP_INT32 ? APSP_INF : dtype == APSP_INT64 ? (uint64_t)APSP_INF64 : 0;
    uint64_t vertices = t->geometry.vertices, span = vertices + t->geometry.n - 1;
    if (t->count != 1 || inf == 0 || most == 0 || most > (inf - 1) / span)
        return 0;
    return (int64_t)((vertices - 1) * most);
}

static apsp_status drive(team *t, const solve_io *io, apsp_report *report, apsp_error *error) {
    backend_device *const *devices = t->devices;
    const apsp_backend_impl *impl = devices[0]->impl; /* the team's one backend */
    size_t count = t->count;
    double t0 = seconds_now();
    const apsp_dtype dtype = io->matrix ? io->matrix->dtype : io->dtype;
    apsp_status status =
        arrange_team(t, io->matrix ? io->matrix->n : io->graph->vertices, dtype, error);
    int negative = 0;                     /* the kernels' negative form (backend.h: kernel_form) */
    uint64_t most = 0;                    /* the largest |weight| */
    if (status == APSP_OK && io->known) { /* no second read of what the writer read */
        negative = io->known->negative;
        most = io->known->most;
    } else if (status == APSP_OK && io->matrix) /* read once the devices said they can take it */
        status = matrix_check_cells(io->matrix, threads_of(t->options->threads), &negative, &most,
                                    error);
    else if (status == APSP_OK) {
        negative = graph_has_negative(io->graph);
        most = graph_largest_weight(io->graph);
    }
    kernel_form form = {dtype, negative, negative ? bound_of(t, dtype, most) : 0};
    for (size_t i = 0; i < count && status == APSP_OK; i++)
        status = impl->set_form(devices[i], &form, error);
    for (size_t i = 0; i < count && status == APSP_OK && io->paths; i++)
        status = impl->paths->prepare(devices[i], error);
    double t1 = seconds_now();
    if (status == APSP_OK)
        status = load_team(t, io, error);
    double t2 = seconds_now();
    beside helper = {0};
    if (status == APSP_OK) {
        beside_start(&helper, io->idle);
        status = run_rounds(t, error);
    }
    double t3 = seconds_now();
    /* Joined before any row is handed on: the rows may go where it prepared. */
    double overlapped = beside_finish(&helper, t3);
    if (status == APSP_OK)
        status = store_team(t, io, negative, error);
    if (status == APSP_OK && negative && io->matrix)
        status = matrix_check_cycles(io->matrix, error);
    double t4 = seconds_now();
    if (status == APSP_OK && io->paths)
        status = derive_team(t, io->paths, error);
    if (io->paths)
        io->paths->seconds = seconds_now() - t4;
    double t5 = seconds_now();
    for (size_t i = 0; i < count; i++)
        impl->drain(devices[i]);
    unload_team(t, status);
    if (status != APSP_OK || !report)
        return status;
    report->release_seconds = seconds_now() - t5;
    snprintf(report->backend, sizeof report->backend, "%s", apsp_backend_name(impl->kind));
    describe_team(t, report);
    report->setup_seconds = t1 - t0;
    report->upload_seconds = t2 - t1;
    report->compute_seconds = t3 - t2;
    report->download_seconds = t4 - t3;
    report->overlapped_seconds = overlapped;
    return APSP_OK;
}

apsp_status drive_rows(backend_device *const *devices, size_t count, apsp_matrix *m,
                       const cell_facts *known, const apsp_row_io *idle,
                       const apsp_options *options, apsp_report *report, apsp_error *error) {
    team t = {.devices = devices, .count = count, .options = options};
    const apsp_idle_work work = {.run = idle ? idle->prepare : NULL,
                                 .context = idle ? idle->context : NULL};
    const solve_io io = {.matrix = m, .known = known, .idle = &work};
    return drive(&t, &io, report, error);
}

apsp_status drive_rows_paths(backend_device *const *devices, size_t count, apsp_matrix *m,
                             paths_job *paths, const apsp_options *options, apsp_report *report,
                             apsp_error *error) {
    team t = {.devices = devices, .count = count, .options = options};
    const solve_io io = {.matrix = m, .paths = paths};
    return drive(&t, &io, report, error);
}

int drive_takes_graphs(backend_device *device, apsp_dtype dtype) {
    const backend_device_memory *memory = device->impl->device_memory;
    return memory && memory->takes_graph(device, dtype);
}

apsp_status drive_graph(backend_device *const *devices, size_t count, const apsp_graph *graph,
                        apsp_dtype dtype, apsp_cells_fn rows, void *context,
                        const apsp_idle_work *idle, const apsp_options *options,
                        apsp_report *report, apsp_error *error) {
    team t = {.devices = devices, .count = count, .options = options};
    const solve_io io = {
        .graph = graph, .dtype = dtype, .rows = rows, .context = context, .idle = idle};
    return drive(&t, &io, report, error);
}
