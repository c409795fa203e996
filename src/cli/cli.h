/* The apsp command's state, shared by main.c (arguments, the run) and solve.c (the graph in,
 * the solve, the output). */
#ifndef APSP_CLI_CLI_H
#define APSP_CLI_CLI_H

#include "apsp.h"
#include "paths.h"
#include "report.h"
#include "sources.h"

#include <pthread.h>

typedef struct cli {
    apsp_options options;
    apsp_read_options read;
    apsp_format output_format;
    const char *input;
    const char *output;
    int list_devices;
    int device_named; /* -d or --backend=opencl was given */
    int verbose;
    int quiet;
    int progress_lines;  /* --progress: progress as lines, also off a terminal */
    int stats_json;      /* --stats-json */
    int show_build;      /* APSP_SHOW_BUILD=1: the log of a successful kernel build too */
    int closed_streams;  /* the standard streams closed at start (startup.h) */
    cli_paths paths;     /* --predecessors, --path */
    cli_sources sources; /* --sources, --method */
    apsp_dtype dtype;    /* the distances' type: --dtype's, or the one the weights need */
    char distances[192]; /* the type and why, for -v */
    double
        open_seconds; /* cli_open_solver's time and the platforms' past the read: not the read's */
    double platform_seconds; /* OpenCL's platforms loaded beside the read (warm_up.h) */
    double platform_waited;  /* the part of that load past the read's end */
    int limited;             /* --limit=D: pairs farther than D left out (csv, tsv) or inf */
    double limit;
} cli;

/* --limit's distance: a finite number (solve.c). Returns 0 or -1. */
int cli_parse_limit(const char *text, double *limit);

/* The distances' type for the graph (dtype.c): --dtype's (c->read.dtype_auto 0), else the
 * narrowest the weights fit; with the reason in c->distances. A floating-point type with the hw3
 * output (int32) is refused here, before the solve, and so are int64 weights that make a distance
 * past int32's range certain. */
apsp_status cli_pick_dtype(cli *c, const apsp_graph *g, apsp_error *err);

/* A hw3 file (not a stream): its header says V before the edges are read (apsp_hw3_vertices;
 * also a .npy file's that its name takes for hw3). */
int cli_input_is_hw3_file(const cli *c);

/* The solver for a graph of `vertices` and `edges` (main.c; edges 0: not yet known): with the
 * size known, auto mode leaves OpenCL unloaded for a graph too small to wait for it
 * (apsp_options.vertices_hint; for chosen sources, their count and the edges too). */
apsp_status cli_open_solver(cli *c, size_t vertices, size_t edges, apsp_solver **solver,
                            apsp_error *err);

/* The graph, the solver opened for its size (cli_open_solver: a hw3 file's from its header,
 * before the edges are read; any other input's, and chosen sources' whose work depends on the
 * edges, once read), the size checked on the solver's devices, and the distances' type picked
 * for it (cli_pick_dtype). */
apsp_status cli_read_input(cli *c, apsp_solver **solver, apsp_graph **g, apsp_error *err);

/* The row writer, timed: the seconds spent writing are the write step of -v, apart from the
 * download (or the sources' solve) that they overlap. Batches written on several threads at
 * once (several devices: apsp_row_writer_any_order) count once: the seconds while any was being
 * written. */
typedef struct timed_writer {
    apsp_row_writer *writer;
    double seconds;
    pthread_mutex_t lock;
    int writing;  /* batches being written now */
    double since; /* when the first of them began */
} timed_writer;
#define TIMED_WRITER_INIT                                                                          \
    { .lock = PTHREAD_MUTEX_INITIALIZER }
/* apsp_row_writer_put_cells for a timed_writer context (an apsp_cells_fn). */
apsp_status cli_put_cells_timed(void *context, size_t first_row, size_t count, const void *rows,
                                size_t pitch, apsp_error *error);

/* Solves the graph and writes OUTPUT (taking `out` over), and the paths when asked for: a binary
 * output as the rows come off the devices, the text output and the paths from the whole
 * matrix. Fills the report and the read-free times. */
apsp_status cli_solve_and_write(cli *c, apsp_solver *solver, const apsp_graph *g, apsp_output *out,
                                apsp_report *report, run_times *times, apsp_error *err);

/* OUTPUT (unless --output-format says its format) or --predecessors named as a format that apsp
 * does not write (.csv, .json, .npz, ...: every other name is hw3, as the course's are):
 * APSP_ERR_USAGE with the message in err (names.c). */
apsp_status cli_refuse_unwritten_names(const cli *c, apsp_error *err);

#endif
