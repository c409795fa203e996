/* The apsp command's paths: --predecessors=FILE (the V x V predecessor matrix) and --path=U,V
 * (one shortest path on standard output), derived after the solve by apsp_predecessors. */
#ifndef APSP_CLI_PATHS_H
#define APSP_CLI_PATHS_H

#include "apsp.h"

typedef struct cli_paths {
    const char *predecessors; /* --predecessors=FILE; NULL: not asked */
    const char *path_spec;    /* --path=U,V as given; NULL: not asked */
    size_t from, to;          /* --path's U and V */
    apsp_output *out;         /* the predecessors' output, open from paths_open to the commit */
    int32_t *pred;            /* the derived rows: all V, or --path's source alone */
    size_t first, rows;       /* pred holds sources [first, first + rows) */
    double seconds;           /* the derivation's time; -1: not derived */
} cli_paths;

/* Whether either option was given: the graph is then kept until after the solve. */
int paths_wanted(const cli_paths *p);
/* --path=U,V: two 0-based vertex numbers. Returns 0, or -1 when malformed. */
int paths_parse_path(cli_paths *p, const char *arg);
/* Before any work: refuses two things written to standard output at once, and opens the
 * predecessors' output (a bad path fails here). */
apsp_status paths_open(cli_paths *p, const char *output, apsp_error *error);
/* Once V is known: --path's vertices below it. */
apsp_status paths_check(const cli_paths *p, size_t vertices, apsp_error *error);
/* After the solve: the predecessors (timed), into p->pred. */
apsp_status paths_derive(cli_paths *p, const apsp_graph *graph, const apsp_matrix *distances,
                         unsigned threads, apsp_error *error);
/* The solve with the predecessors: all of them (--predecessors) of int32 distances by
 * apsp_solver_solve_paths, on the devices where it can; --path's source alone, and the other
 * types, on the host after the solve. */
apsp_status paths_solve(cli_paths *p, apsp_solver *solver, const apsp_graph *graph, apsp_matrix *m,
                        apsp_report *report, unsigned threads, apsp_error *error);
/* Before OUTPUT's commit (so that a failure here leaves OUTPUT as it was): writes the
 * predecessors. */
apsp_status paths_commit(cli_paths *p, const apsp_matrix *distances, apsp_error *error);
/* After OUTPUT's commit: prints --path's line. */
apsp_status paths_print(cli_paths *p, const apsp_matrix *distances, apsp_error *error);
/* --path's line from its source's predecessor row and row of distances (of `dtype`): "length D:
 * U -> ... -> V", or "no path from U to V". */
apsp_status paths_print_line(const cli_paths *p, const int32_t *pred_row, const void *dist_row,
                             apsp_dtype dtype, size_t vertices, apsp_error *error);
/* Removes an uncommitted output and frees what the paths hold. */
void paths_release(cli_paths *p);

#endif
