/* The interface every compute backend implements, at the level of the rounds of blocked
 * Floyd-Warshall (../shared/DESIGN.md section 9).
 *
 * A backend lists its devices and opens one as a `backend_device`: the instance that holds what
 * lives across solves (an OpenCL context, queue and compiled program; a pool of threads). A solve
 * then drives the device round by round:
 *
 *     plan(vertices)          the padded size n and round depth T the device works with
 *     load(rows b..e)         take those rows of the matrix (all of them for one device)
 *     for r in 0 .. n/T - 1:
 *         close_pivot(r)      only on the owner of the pivot rows r*T .. r*T + T - 1: closes the
 *                             pivot block and updates the pivot rows (phases 1 and 2)
 *         get_row_panel(r) / put_row_panel(r)
 *                             hand the T x n pivot rows out of the owner, into the others
 *         relax(r)            phase 2 on its pivot-column blocks and phase 3 on all its rows
 *     store()                 give the rows back to the matrix
 *     unload()                drop the solve's buffers (always, also after a failure)
 *
 * Drivers (src/drivers/) decide who owns which rows and move the panels; every cell sees its k
 * in the same order whatever the driver, so the results are identical.
 * Calls may only queue work (OpenCL does): wait_round(r) blocks until round r is done, and
 * store() until everything is. Nothing outside a backend's folder knows how it works. */
#ifndef APSP_BACKEND_H
#define APSP_BACKEND_H

#include "apsp.h"
#include "base/device_list.h"

#include <stdint.h>

/* An opened device; each backend defines the struct. */
typedef struct backend_device backend_device;

/* How a device lays out a solve of `vertices` vertices. */
typedef struct solve_geometry {
    size_t vertices; /* real vertices */
    size_t n;        /* padded size: a multiple of tile and of row_unit */
    size_t tile;     /* round depth T: pivot rows per round */
    size_t row_unit; /* the rows a device owns begin and end on multiples of this */
} solve_geometry;

/* What the device ran with, for apsp_report. */
typedef struct device_summary {
    char device[256];
    int tile;
    int threads;        /* CPU threads (0 for OpenCL) */
    int program_builds; /* programs compiled since the last summary */
} device_summary;

typedef struct apsp_backend_impl {
    apsp_backend_kind kind; /* its name is apsp_backend_name(kind) */
    /* Appends this backend's devices to the list. Finding none is not an error. */
    apsp_status (*list)(device_list *list, apsp_error *error);
    /* Opens the listed device `device` (one of this backend's entries) with the options, which
     * must outlive the device. */
    apsp_status (*open)(const apsp_device_info *device, const apsp_options *options,
                        backend_device **out, apsp_error *error);
    void (*close)(backend_device *device); /* accepts NULL */

    apsp_status (*plan)(backend_device *device, size_t vertices, solve_geometry *geometry,
                        apsp_error *error);
    /* Rows [row_begin, row_end) of the geometry's padded matrix, from `matrix` (rows and columns
     * at or past matrix->n are padding, which the device makes itself). */
    apsp_status (*load)(backend_device *device, const solve_geometry *geometry, apsp_matrix *matrix,
                        size_t row_begin, size_t row_end, apsp_error *error);
    apsp_status (*close_pivot)(backend_device *device, size_t round, apsp_error *error);
    /* Round r's pivot rows, T x n row-major, out of (after close_pivot) or into the device. */
    apsp_status (*get_row_panel)(backend_device *device, size_t round, int32_t *panel,
                                 apsp_error *error);
    apsp_status (*put_row_panel)(backend_device *device, size_t round, const int32_t *panel,
                                 apsp_error *error);
    apsp_status (*relax)(backend_device *device, size_t round, apsp_error *error);
    apsp_status (*wait_round)(backend_device *device, size_t round, apsp_error *error);
    apsp_status (*store)(backend_device *device, apsp_matrix *matrix, apsp_error *error);
    void (*unload)(backend_device *device);

    void (*summarize)(backend_device *device, device_summary *summary);
} apsp_backend_impl;

extern const apsp_backend_impl apsp_backend_cpu;
#ifdef APSP_HAVE_OPENCL
extern const apsp_backend_impl apsp_backend_opencl;
#endif

#endif
