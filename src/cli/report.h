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
    int lines;      /* 1: a line at a time (a log), 0: one line that rewrites itself (a terminal) */
    size_t sources; /* the chosen sources' count, once known: a total of that many counts
                     * sources (a sparse method), another rounds (auto may pick Floyd-Warshall) */
    double first_time; /* the first call's time and count: the start of the measured stretch */
    size_t first_done;
} progress;

/* apsp_options.progress for a `progress` context. */
void progress_show(void *context, size_t done, size_t total);

/* The display's text for `done` of `total` at time `now` (cli_clock's), or 0 when none is due
 * yet (a terminal's line is rewritten twice a second, a log's every few seconds). The time left
 * is estimated only from what came after the first call, whose time also holds the set-up
 * (reading, kernel builds, uploads): until a second call has measured a stretch of the work
 * itself, the line says "estimating". */
int progress_line(progress *p, double now, size_t done, size_t total, char *line, size_t size);

/* The host's share of the run, in seconds. */
typedef struct run_times {
    double read, write, total;
    double close;          /* closing the solver: its device buffers, context and threads */
    double predecessors;   /* --predecessors, --path: the derivation; < 0: not derived */
    double warm_up;        /* the platforms loaded while the read ran on a thread (warm_up.h) */
    double warm_up_waited; /* how long that load outlasted the read: a step of the run's own */
    const char *distances; /* the distances' type and why; NULL: not known */
} run_times;

/* -v's line on the platforms' load beside the read, when there was one. */
void report_warm_up(const run_times *times);

/* -v: backend, devices, sizes, and the time of each step. */
void report_print(size_t vertices, const apsp_report *report, const run_times *times);

/* --stats-json: the same as one JSON object on one line. */
void report_json(size_t vertices, const apsp_report *report, const run_times *times);

#endif
