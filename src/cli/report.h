/* What the apsp command says about a run on stderr: the progress display, -v's breakdown and
 * --stats-json's line. */
#ifndef APSP_CLI_REPORT_H
#define APSP_CLI_REPORT_H

#include "apsp.h"

/* A monotonic clock in seconds. */
double cli_clock(void);

typedef struct progress {
    double start;
    double last_shown;
    int lines; /* 1: a line at a time (a log), 0: one line that rewrites itself (a terminal) */
} progress;

/* apsp_options.progress for a `progress` context. */
void progress_show(void *context, size_t rounds_done, size_t rounds_total);

/* The host's share of the run, in seconds. */
typedef struct run_times {
    double read, write, total;
    double close;          /* closing the solver: its device buffers, context and threads */
    double predecessors;   /* --predecessors, --path: the derivation; < 0: not derived */
    const char *distances; /* the distances' type and why; NULL: not known */
} run_times;

/* -v: backend, devices, sizes, and the time of each step. */
void report_print(size_t vertices, const apsp_report *report, const run_times *times);

/* --stats-json: the same as one JSON object on one line. */
void report_json(size_t vertices, const apsp_report *report, const run_times *times);

#endif
