/* --sources and --method (sources.h). */
#include "cli.h"
#include "sources.h"

#include <errno.h>
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
    return apsp_method_parse(name, &s->method);
}

void sources_release(cli_sources *s) {
    free(s->ranges);
    s->ranges = NULL;
    s->count = s->capacity = 0;
}

/* The ids in list order, each range checked against V first (so a range far past V allocates
 * nothing). *ids NULL with *count 0 means every vertex. */
static apsp_status expand(const cli_sources *s, size_t vertices, int32_t **ids, size_t *count,
                          apsp_error *err) {
    *ids = NULL;
    *count = 0;
    size_t total = 0;
    for (size_t i = 0; i < s->count; i++) {
        if ((size_t)s->ranges[i].last >= vertices) {
            snprintf(err->message, sizeof err->message,
                     "--sources: id %d is out of range: the graph's vertices are 0 to %zu",
                     s->ranges[i].last, vertices - 1);
            return err->status = APSP_ERR_USAGE;
        }
        total += (size_t)(s->ranges[i].last - s->ranges[i].first) + 1;
    }
    if (!s->ranges)
        return APSP_OK;
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

/* The writers of OUTPUT and of --predecessors' file (pred_out NULL: none), begun. */
static apsp_status begin_writers(apsp_output *out, apsp_format format, apsp_output *pred_out,
                                 apsp_format pred_format, size_t rows, size_t vertices,
                                 timed_writer *t, timed_writer *pred, apsp_error *err) {
    apsp_status status = apsp_row_writer_begin_rows(out, format, rows, vertices, &t->writer, err);
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

apsp_status sources_solve_and_write(cli_sources *s, apsp_solver *solver, const apsp_graph *g,
                                    apsp_output *out, apsp_format format, apsp_output *pred_out,
                                    apsp_format pred_format, apsp_report *report, run_times *times,
                                    apsp_error *err) {
    int32_t *ids;
    size_t count;
    apsp_status status = expand(s, g->vertices, &ids, &count, err);
    if (status != APSP_OK) {
        apsp_output_abort(out);
        apsp_output_abort(pred_out);
        return status;
    }
    timed_writer t = {0}, pred = {0};
    status = begin_writers(out, format, pred_out, pred_format, ids ? count : g->vertices,
                           g->vertices, &t, &pred, err);
    if (status == APSP_OK)
        status = apsp_solver_solve_sources_paths(
            solver, g, ids, count, s->method, cli_put_rows_timed, &t,
            pred_out ? cli_put_rows_timed : NULL, &pred, report, err);
    double start = cli_clock();
    if (status == APSP_OK || t.writer)
        status = finish_writers(status, &t, &pred, err);
    double written = t.seconds + pred.seconds;
    times->write = written + (cli_clock() - start);
    if (status == APSP_OK && report->padded == 0) /* the sparse methods write inside the solve */
        report->compute_seconds -= written;
    free(ids);
    return status;
}

void sources_report(size_t vertices, const apsp_report *report, const run_times *times) {
    fprintf(stderr, "apsp: method %s\n", report->method);
    if (report->padded > 0) { /* Floyd-Warshall ran */
        report_print(vertices, report, times);
        return;
    }
    if (report->threads == 0) /* the device's method: its parts */
        fprintf(stderr,
                "apsp: %s\napsp: on %s; read %.3f s, compute %.3f s, write %.3f s, total "
                "%.3f s\n",
                report->choice, report->device, times->read, report->compute_seconds, times->write,
                times->total);
    else
        fprintf(stderr,
                "apsp: on %d host threads; read %.3f s, compute %.3f s, write %.3f s, total "
                "%.3f s\n",
                report->threads, times->read, report->compute_seconds, times->write, times->total);
}
