/* The apsp command's state, shared by main.c (arguments, the run) and solve.c (the graph in,
 * the solve, the output). */
#ifndef APSP_CLI_CLI_H
#define APSP_CLI_CLI_H

#include "apsp.h"
#include "paths.h"
#include "report.h"

typedef struct cli {
    apsp_options options;
    apsp_read_options read;
    apsp_format output_format;
    const char *input;
    const char *output;
    int list_devices;
    int verbose;
    int quiet;
    int progress_lines; /* --progress: progress as lines, also off a terminal */
    int stats_json;     /* --stats-json */
    int show_build;     /* APSP_SHOW_BUILD=1: the log of a successful kernel build too */
    cli_paths paths;    /* --predecessors, --path */
} cli;

/* A hw3 file (not a stream): its header says V before the edges are read. */
int cli_input_is_hw3_file(const cli *c);

/* The graph, checked on the solver's devices for its size (a hw3 file's from its header, before
 * its edges are read). */
apsp_status cli_read_input(const cli *c, apsp_solver *solver, apsp_graph **g, apsp_error *err);

/* Solves the graph and writes OUTPUT (taking `out` over), and the paths when asked for: a binary
 * output as the rows come off the devices, the text output and the paths from the whole
 * matrix. Fills the report and the read-free times. */
apsp_status cli_solve_and_write(cli *c, apsp_solver *solver, const apsp_graph *g, apsp_output *out,
                                apsp_report *report, run_times *times, apsp_error *err);

#endif
