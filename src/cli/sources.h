/* The apsp command's chosen sources and method: --sources=SPEC and --method=NAME, the S x V
 * rows of apsp_solver_solve_sources written as they come (sources.c). */
#ifndef APSP_CLI_SOURCES_H
#define APSP_CLI_SOURCES_H

#include "apsp.h"
#include "paths.h"
#include "report.h"

#include <stddef.h>
#include <stdint.h>

/* One item of the list: the ids first to last, as given. */
typedef struct source_range {
    int32_t first, last;
} source_range;

typedef struct cli_sources {
    source_range *ranges; /* NULL: every vertex */
    size_t count, capacity;
    apsp_method method;
    int asked;        /* --sources or --method was given: the run goes through the sources' solve */
    int method_given; /* --method was given */
    int32_t *path_pred;        /* --path's source's predecessor row, kept from the solve */
    void *path_dist;           /* and its distances */
    progress *shown;           /* the progress display, told the sources' count; NULL: none */
    const char *const *labels; /* the long output's names (apsp_row_writer_set_table) */
    int limited;               /* and --limit */
    double limit;
} cli_sources;

/* --sources=SPEC: "0-99,500" (ids and ranges, 0-based) or "@FILE" (one id or range a line).
 * Returns 0, or -1 with a one-line reason in message. */
int sources_parse(cli_sources *s, const char *spec, char *message, size_t size);
/* --method=auto|fw|dijkstra|johnson|bellman-ford. Returns 0 or -1. */
int sources_parse_method(cli_sources *s, const char *name);
void sources_release(cli_sources *s);

/* Solves for the sources and writes their rows (distances of `dtype`) to OUTPUT in its format,
 * their predecessors to
 * --predecessors' output (paths->out, NULL: none), taking both outputs over, and after them
 * --path's line (its source must be one of the list); ids at or above V are refused first
 * (APSP_ERR_USAGE). Memory: a batch of rows and --path's one row, never V x V. */
apsp_status sources_solve_and_write(cli_sources *s, apsp_solver *solver, const apsp_graph *g,
                                    apsp_dtype dtype, apsp_output *out, apsp_format format,
                                    cli_paths *paths, apsp_report *report, run_times *times,
                                    apsp_error *err);

/* A device named on the command line (-d, --backend=opencl) that could not run the sources'
 * method (report->device_declined): after a run on the host threads, one line on stderr saying
 * what ran instead and why (after the device's run, that its last sources ran on the host); after
 * the library's refusal (--method=bellman-ford named too: apsp_options.sources_device_only), err's
 * message in the command's words. */
void sources_say_declined(const char *input, const apsp_report *report, apsp_status status,
                          apsp_error *err);

/* -v: the method, why, and the sources' run. */
void sources_report(size_t vertices, const apsp_report *report, const run_times *times);

/* How many sources the list names for a graph of `vertices` (every vertex: none listed), ranges
 * counted whole: a size for auto's estimate (apsp_options.sources_hint), before any check. */
size_t sources_count(const cli_sources *s, size_t vertices);

#endif
