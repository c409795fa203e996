/* --sources and --method (sources.h). */
#include "cli.h"
#include "message.h"
#include "sources.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A vertex id of the list: digits only, at most INT32_MAX. Returns the character after it, or
 * NULL. */
static const char *parse_id(const char *p, int32_t *id) {
    int64_t v = 0;
    const char *start = p;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (*p - '0')) > INT32_MAX)
            return NULL;
    *id = (int32_t)v;
    return p == start ? NULL : p;
}

/* Appends the items of `text` up to `end` ("N" or "N-M", by commas) to the list. */
static int parse_items(cli_sources *s, const char *text, const char *end, const char *where,
                       char *message, size_t size) {
    for (const char *p = text; p < end;) {
        source_range r;
        const char *q = parse_id(p, &r.first);
        r.last = r.first;
        if (q && q < end && *q == '-')
            q = parse_id(q + 1, &r.last);
        if (!q || (q < end && *q != ',') || r.last < r.first) {
            snprintf(message, size,
                     "--sources: %s: expected ids N or ranges N-M (N <= M, 0-based, at most "
                     "2147483647) separated by commas, got \"%.*s\"",
                     where, (int)(end - text < 60 ? end - text : 60), text);
            return -1;
        }
        if (s->count == s->capacity) { /* doubling: a file of a million ids reads in linear time */
            size_t capacity = s->capacity ? 2 * s->capacity : 64;
            source_range *grown = realloc(s->ranges, capacity * sizeof *grown);
            if (!grown) {
                snprintf(message, size, "--sources: out of memory");
                return -1;
            }
            s->ranges = grown;
            s->capacity = capacity;
        }
        s->ranges[s->count++] = r;
        p = q < end ? q + 1 : q;
        if (q + 1 == end) { /* a trailing comma */
            snprintf(message, size, "--sources: %s: a comma with no id after it", where);
            return -1;
        }
    }
    return 0;
}

/* @FILE: one id or range a line, read as the input is (nothing trusted: every line checked). */
static int parse_file(cli_sources *s, const char *path, char *message, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(message, size, "--sources=@%s: %s", path, strerror(errno));
        return -1;
    }
    char line[64], where[96];
    int rc = 0;
    for (size_t number = 1; rc == 0 && fgets(line, sizeof line, f); number++) {
        size_t len = strcspn(line, "\r\n"); /* (a CRLF line ends at its CR) */
        snprintf(where, sizeof where, "%.60s line %zu", path, number);
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(message, size, "--sources: %s is longer than an id", where);
            rc = -1;
        } else if (len == 0) {
            snprintf(message, size, "--sources: %s is empty", where);
            rc = -1;
        } else if (strcmp(line + len, "\r\n") != 0 && strcmp(line + len, "\n") != 0 &&
                   line[len] != '\0') {
            snprintf(message, size, "--sources: %s has a carriage return inside it", where);
            rc = -1;
        } else {
            rc = parse_items(s, line, line + len, where, message, size);
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(message, size, "--sources=@%s: reading failed", path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0 && s->count == 0) {
        snprintf(message, size, "--sources=@%s: the file names no source", path);
        rc = -1;
    }
    return rc;
}

int sources_parse(cli_sources *s, const char *spec, char *message, size_t size) {
    s->asked = 1;
    if (spec[0] == '@')
        return parse_file(s, spec + 1, message, size);
    if (spec[0] == '\0') {
        snprintf(message, size, "--sources is empty: expected ids like 0-99,500 or @FILE");
        return -1;
    }
    return parse_items(s, spec, spec + strlen(spec), "the list", message, size);
}

int sources_parse_method(cli_sources *s, const char *name) {
    s->asked = 1;
    s->method_given = 1;
    return apsp_method_parse(name, &s->method);
}

void sources_release(cli_sources *s) {
    free(s->ranges);
    free(s->path_pred);
    free(s->path_dist);
    s->path_pred = NULL;
    s->path_dist = NULL;
    s->ranges = NULL;
    s->count = s->capacity = 0;
}

size_t sources_count(const cli_sources *s, size_t vertices) {
    size_t total = 0;
    for (size_t i = 0; i < s->count; i++)
        total += (size_t)(s->ranges[i].last - s->ranges[i].first) + 1;
    return s->ranges ? total : vertices;
}

/* The ids in list order, each range checked against V first (so a range far past V allocates
 * nothing). *ids NULL with *count 0 means every vertex. */
static apsp_status expand(const cli_sources *s, size_t vertices, int32_t **ids, size_t *count,
                          apsp_error *err) {
    *ids = NULL;
    *count = 0;
    for (size_t i = 0; i < s->count; i++) {
        if ((size_t)s->ranges[i].last >= vertices) {
            snprintf(err->message, sizeof err->message,
                     "--sources: id %d is out of range: the graph's vertices are 0 to %zu",
                     s->ranges[i].last, vertices - 1);
            return err->status = APSP_ERR_USAGE;
        }
    }
    if (!s->ranges)
        return APSP_OK;
    size_t total = sources_count(s, vertices);
    *ids = malloc((total ? total : 1) * sizeof **ids);
    if (!*ids) {
        snprintf(err->message, sizeof err->message, "--sources: out of memory for %zu ids", total);
        return err->status = APSP_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < s->count; i++)
        for (int64_t v = s->ranges[i].first; v <= s->ranges[i].last; v++)
            (*ids)[(*count)++] = (int32_t)v;
    return APSP_OK;
}

/* The writers of OUTPUT (distances of `dtype`) and of --predecessors' file (pred_out NULL:
 * none), begun. */
static apsp_status begin_writers(apsp_output *out, apsp_format format, apsp_dtype dtype,
                                 apsp_output *pred_out, apsp_format pred_format, size_t rows,
                                 size_t vertices, timed_writer *t, timed_writer *pred,
                                 apsp_error *err) {
    apsp_status status =
        apsp_row_writer_begin_typed(out, format, dtype, rows, vertices, &t->writer, err);
    if (!pred_out)
        return status;
    if (status != APSP_OK) {
        apsp_output_abort(pred_out);
        return status;
    }
    status = apsp_row_writer_begin_rows(pred_out, pred_format, rows, vertices, &pred->writer, err);
    if (status != APSP_OK)
        apsp_row_writer_abort(t->writer);
    return status;
}

/* --predecessors' file first, so that its failure leaves OUTPUT as it was. */
static apsp_status finish_writers(apsp_status status, timed_writer *t, timed_writer *pred,
                                  apsp_error *err) {
    if (status == APSP_OK && pred->writer)
        status = apsp_row_writer_finish(pred->writer, err);
    else
        apsp_row_writer_abort(pred->writer);
    if (status == APSP_OK)
        return apsp_row_writer_finish(t->writer, err);
    apsp_row_writer_abort(t->writer);
    return status;
}

/* The row of --path's source: the first of the list that is U (every vertex: row U). */
static apsp_status path_row(const cli_paths *p, const int32_t *ids, size_t count, size_t *row,
                            apsp_error *err) {
    *row = SIZE_MAX;
    if (!p->path_spec)
        return APSP_OK;
    if (!ids) {
        *row = p->from;
        return APSP_OK;
    }
    for (size_t i = 0; i < count && *row == SIZE_MAX; i++)
        if ((size_t)ids[i] == p->from)
            *row = i;
    if (*row != SIZE_MAX)
        return APSP_OK;
    snprintf(err->message, sizeof err->message,
             "--path=%.64s: %zu is not one of --sources (only their rows are solved)", p->path_spec,
             p->from);
    return err->status = APSP_ERR_USAGE;
}

/* Rows of cell_bytes cells on their way to a writer (none: kept only), one of them kept:
 * --path's source's. */
typedef struct kept_row {
    timed_writer *writer;
    size_t index; /* the row kept; SIZE_MAX: none */
    size_t vertices, cell_bytes;
    void *cells;
} kept_row;

static apsp_status keep_and_put(void *context, size_t first_row, size_t count, const void *rows,
                                size_t pitch, apsp_error *error) {
    kept_row *k = context;
    if (k->index >= first_row && k->index - first_row < count)
        memcpy(k->cells, (const char *)rows + (k->index - first_row) * pitch * k->cell_bytes,
               k->vertices * k->cell_bytes);
    if (!k->writer)
        return APSP_OK;
    double start = cli_clock();
    apsp_status status =
        apsp_row_writer_put_cells(k->writer->writer, first_row, count, rows, pitch, error);
    k->writer->seconds += cli_clock() - start;
    return status;
}

/* keep_and_put for the int32 predecessor rows. */
static apsp_status keep_and_put_int32(void *context, size_t first_row, size_t count,
                                      const int32_t *rows, size_t pitch, apsp_error *error) {
    return keep_and_put(context, first_row, count, rows, pitch, error);
}

/* The writers' outputs prepared (their pages made ready) while the device's rounds run:
 * apsp_idle_work's run and stop over both writers. */
static void prepare_both(void *context) {
    timed_writer **both = context;
    for (int i = 0; i < 2; i++)
        if (both[i] && both[i]->writer)
            apsp_row_writer_prepare(both[i]->writer);
}

static void stop_both(void *context) {
    timed_writer **both = context;
    for (int i = 0; i < 2; i++)
        if (both[i] && both[i]->writer)
            apsp_row_writer_stop_preparing(both[i]->writer);
}

/* The solve, its rows (of `dtype`) to the writers and --path's kept. */
static apsp_status solve_rows(cli_sources *s, apsp_solver *solver, const apsp_graph *g,
                              apsp_dtype dtype, const int32_t *ids, size_t count, size_t path_index,
                              timed_writer *t, timed_writer *pred, apsp_report *report,
                              apsp_error *err) {
    size_t v = g->vertices, cell = apsp_dtype_size(dtype);
    kept_row dist_row = {t, path_index, v, cell, NULL},
             pred_row = {NULL, path_index, v, sizeof(int32_t), NULL};
    pred_row.writer = pred->writer ? pred : NULL;
    int want_pred = pred->writer || path_index != SIZE_MAX;
    if (path_index != SIZE_MAX) {
        dist_row.cells = malloc((v ? v : 1) * cell);
        pred_row.cells = malloc((v ? v : 1) * sizeof(int32_t));
    }
    apsp_status status = APSP_OK;
    if (path_index != SIZE_MAX && (!dist_row.cells || !pred_row.cells)) {
        snprintf(err->message, sizeof err->message, "out of memory for --path");
        status = err->status = APSP_ERR_NO_MEMORY;
    }
    if (s->shown)
        s->shown->sources = count;
    timed_writer *both[2] = {t, pred};
    const apsp_idle_work prepare = {.run = prepare_both, .stop = stop_both, .context = both};
    if (status == APSP_OK)
        status = apsp_solver_solve_sources_idle(
            solver, g, ids, count, s->method, dtype, keep_and_put, &dist_row,
            want_pred ? keep_and_put_int32 : NULL, &pred_row, &prepare, report, err);
    s->path_pred = pred_row.cells;
    s->path_dist = dist_row.cells;
    return status;
}

apsp_status sources_solve_and_write(cli_sources *s, apsp_solver *solver, const apsp_graph *g,
                                    apsp_dtype dtype, apsp_output *out, apsp_format format,
                                    cli_paths *paths, apsp_report *report, run_times *times,
                                    apsp_error *err) {
    apsp_output *pred_out = paths->out; /* (taken over) */
    paths->out = NULL;
    apsp_format pred_format =
        paths->predecessors && apsp_format_for(paths->predecessors, 1) == APSP_FORMAT_NPY
            ? APSP_FORMAT_NPY
            : APSP_FORMAT_HW3;
    int32_t *ids;
    size_t count, path_index;
    apsp_status status = expand(s, g->vertices, &ids, &count, err);
    if (status == APSP_OK)
        status = path_row(paths, ids, count, &path_index, err);
    if (status != APSP_OK) {
        free(ids);
        apsp_output_abort(out);
        apsp_output_abort(pred_out);
        return status;
    }
    timed_writer t = TIMED_WRITER_INIT, pred = TIMED_WRITER_INIT;
    status = begin_writers(out, format, dtype, pred_out, pred_format, ids ? count : g->vertices,
                           g->vertices, &t, &pred, err);
    if (status == APSP_OK) /* (a failure: finish_writers aborts them) */
        status = apsp_row_writer_set_table(t.writer, s->labels, ids, s->limited, s->limit, err);
    if (status == APSP_OK)
        status = solve_rows(s, solver, g, dtype, ids, count, path_index, &t, &pred, report, err);
    double start = cli_clock();
    if (status == APSP_OK || t.writer)
        status = finish_writers(status, &t, &pred, err);
    double written = t.seconds + pred.seconds;
    times->write = written + (cli_clock() - start);
    if (status == APSP_OK && report->padded == 0) /* the sparse methods write inside the solve */
        report->compute_seconds -= written;
    if (status == APSP_OK && paths->path_spec) /* after OUTPUT, as the matrix's --path */
        status = paths_print_line(paths, s->path_pred, s->path_dist, dtype, g->vertices, err);
    free(ids);
    return status;
}

void sources_say_declined(const char *input, const apsp_report *report, apsp_status status,
                          apsp_error *err) {
    if (!report->device_declined[0])
        return;
    int name = (int)strcspn(report->method, " ");
    int asked = (int)strcspn(report->device_declined, " "); /* "bellman-ford on ...", "johnson" */
    if (status == APSP_OK && report->threads == 0) /* the device ran, the last sources not */
        message_print("apsp: %s: %s", input, report->device_declined);
    else if (status == APSP_OK)
        message_print("apsp: %s: %.*s ran on %d host threads instead of the device named: %s",
                      input, name, report->method, report->threads, report->device_declined);
    else if (status == APSP_ERR_USAGE)
        snprintf(err->message, sizeof err->message,
                 "%.300s: --method=%.*s and a device are both named, but %s: give "
                 "--backend=cpu for the host threads' %.*s, or leave out --method for auto's "
                 "choice",
                 input, asked, report->device_declined, report->device_declined, asked,
                 report->device_declined);
}

void sources_report(size_t vertices, const apsp_report *report, const run_times *times) {
    message_print("apsp: method %s", report->method);
    if (report->padded > 0) { /* Floyd-Warshall ran */
        report_print(vertices, report, times);
        return;
    }
    if (report->threads == 0) { /* the device's method: its parts */
        message_print("apsp: %s", report->choice);
        message_print("apsp: on %s; read %.3f s, setup %.3f s, compute %.3f s, write %.3f s, total "
                      "%.3f s",
                      report->device, times->read, report->setup_seconds, report->compute_seconds,
                      times->write, times->total);
    } else {
        message_print("apsp: on %d host threads; read %.3f s, setup %.3f s, compute %.3f s, write "
                      "%.3f s, total %.3f s",
                      report->threads, times->read, report->setup_seconds, report->compute_seconds,
                      times->write, times->total);
    }
    report_warm_up(times);
}
