/* The apsp_solver itself, for the solver's own files (solver.c, paths.c, batch.c, sources.c):
 * its state, its options, its device, whether host work may run beside its rounds, and the
 * report's common parts. Nothing below the solver includes this: the features take what they
 * need as arguments. */
#ifndef APSP_SOLVER_SOLVER_H
#define APSP_SOLVER_SOLVER_H

#include "apsp.h"
#include "backend/backend.h"
#include "devices/backends.h"

struct apsp_solver {
    apsp_options options;                 /* the device keeps a pointer to these */
    backend_device *devices[MAX_DEVICES]; /* of one backend, each carrying its table */
    size_t count;
    char choice[192];    /* why these devices, for the report */
    int opencl_listed;   /* for the report */
    double open_seconds; /* reported as set-up by the first solve */
    int open_builds;     /* programs built while opening, likewise */
    int off_host;        /* no device computes on the host's cores: they idle during a solve */
    apsp_matrix *whole;  /* the integer matrix of the last whole-number float solve (src/whole/) */
    apsp_matrix *rows;   /* the matrix of the last apsp_solver_solve_rows in the rows' own type */
    const apsp_idle_work *idle; /* apsp_solver_solve_graph_idle's, for the call's solve */
};

/* The options the solver was made with. */
const apsp_options *solver_options(const apsp_solver *solver);

/* The solver's first device (its table: device->impl); NULL when it has none. */
backend_device *solver_device(const apsp_solver *solver);

/* Whether host work may run beside the devices' rounds (apsp_options.overlap): they are off
 * the host's cores, or an OpenCL device and asked for. */
int solver_overlaps(const apsp_solver *solver);

/* The first solve's report carries the opening's time and builds. */
void add_open_to_report(apsp_solver *s, apsp_report *report);

/* add_open_to_report's time and builds only, the report's choice left as the solve said it (a
 * sparse method's); nothing where a solve has taken them already. */
void add_open_time_to_report(apsp_solver *s, apsp_report *report);

/* The report's kernels for a solve in the distances' own type. */
void note_own_kernels(apsp_report *report, apsp_dtype dtype);

#endif
