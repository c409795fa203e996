/* Whole-number floats through the integer kernels (whole_floats.h).
 *
 * Why the answer is the float path's, bit for bit. Let W be the largest |weight| and suppose no
 * negative cycle. Every value a Floyd-Warshall order keeps in a cell is at least the true
 * distance, and the argument that it reaches it uses only sums d(i,k) + d(k,j) of two path
 * lengths of at most (V - 1) W each, so every sum that decides the answer is an integer of
 * magnitude at most 2 (V - 1) W. Within 2^24 (float32) or 2^53 (float64) the float type holds
 * such integers exactly, and rounding is monotone, so no rounded sum of larger magnitude can
 * undercut them: the float path ends with the exact distances, as the integer kernels do. The
 * bits: a zero the float path makes is +0.0 unless both terms are -0.0, so without -0.0 in the
 * input every zero is +0.0, as the conversion back writes it; +inf is the integers' marker.
 * With a negative cycle nothing bounds the sums, so the integers' answer is not used (below).
 *
 * Here: the conversions to the integer matrix and back, and the solve; the scan of the cells and
 * the plan of the kernels are whole_scan.c's. */
#include "whole/whole_floats.h"

#include "base/error.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"
#include "whole/whole_scan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the conversions ----------------------------------------------------------------------- */

/* The inverse of cell_number (whole_scan.h): +inf as the integer types' marker. */
static inline __attribute__((always_inline)) void put_number(apsp_dtype type, void *row, size_t j,
                                                             double x) {
    switch (type) {
#define PUT_NUMBER(TYPE, NAME, C, NONE, REAL, DIGITS)                                              \
    case TYPE:                                                                                     \
        ((C *)row)[j] = !REAL && x == INFINITY ? (C)(NONE) : (C)x;                                 \
        break;
        ELEMENT_TYPES(PUT_NUMBER)
#undef PUT_NUMBER
    }
}

static inline __attribute__((always_inline)) void convert_row(apsp_dtype from, const void *row,
                                                              apsp_dtype to, void *out, size_t n) {
    for (size_t j = 0; j < n; j++)
        put_number(to, out, j, cell_number(from, row, j));
}

/* One row of n cells from one type into the other, either way: float32 and int32 (float32's
 * bound is within int32's rule), float64 and int32 or int64. */
static void convert_any_row(apsp_dtype from, const void *row, apsp_dtype to, void *out, size_t n) {
    if (from == APSP_FLOAT32)
        convert_row(APSP_FLOAT32, row, APSP_INT32, out, n);
    else if (from == APSP_FLOAT64 && to == APSP_INT32)
        convert_row(APSP_FLOAT64, row, APSP_INT32, out, n);
    else if (from == APSP_FLOAT64)
        convert_row(APSP_FLOAT64, row, APSP_INT64, out, n);
    else if (to == APSP_FLOAT32)
        convert_row(APSP_INT32, row, APSP_FLOAT32, out, n);
    else if (from == APSP_INT32)
        convert_row(APSP_INT32, row, APSP_FLOAT64, out, n);
    else
        convert_row(APSP_INT64, row, APSP_FLOAT64, out, n);
}

/* The source's n x n cells and the integer matrix, one way or the other. */
typedef struct conversion {
    const float_source *src;
    apsp_matrix *integer;
} conversion;

/* Rows [begin, end) into the integer matrix (the int64 kernels' second pass). */
static int convert_in(void *context, size_t begin, size_t end) {
    const conversion *c = context;
    int failed;
    void *buffer = source_buffer(c->src, &failed);
    if (failed)
        return ENOMEM;
    for (size_t i = begin; i < end; i++)
        convert_any_row(c->src->dtype, source_row(c->src, i, buffer), c->integer->dtype,
                        apsp_matrix_row_cells(c->integer, i), c->src->n);
    free(buffer);
    return 0;
}

/* Rows [begin, end) of the distances back: into the matrix, or through a row buffer to the
 * caller's io->write. */
static int convert_out(void *context, size_t begin, size_t end) {
    const conversion *c = context;
    const float_source *src = c->src;
    int failed;
    void *buffer = source_buffer(src, &failed);
    if (failed)
        return ENOMEM;
    for (size_t i = begin; i < end; i++) {
        void *row = src->m ? apsp_matrix_row_cells(src->m, i) : buffer;
        convert_any_row(c->integer->dtype, apsp_matrix_row_cells(c->integer, i), src->dtype, row,
                        src->n);
        if (!src->m)
            src->io->write(src->io->context, i, row);
    }
    free(buffer);
    return 0;
}

/* ---- the solve ----------------------------------------------------------------------------- */

static void note(apsp_report *report, const whole_plan *plan, double seconds) {
    if (!report)
        return;
    report->kernels = plan->kernels;
    snprintf(report->kernels_why, sizeof report->kernels_why, "%s", plan->why);
    report->whole_seconds = seconds;
}

/* One solve's state: the source, the job, the plan and where the time went. */
typedef struct whole_solve {
    apsp_solver *solver;
    const float_source *src;
    const whole_job *job;
    whole_plan plan;
    int filled;     /* the kept int32 matrix holds the source's cells */
    char room[160]; /* why the int32 matrix could not be made, or "" */
    double seconds; /* choosing and converting beyond the row passes */
    double in, out; /* the passes over the source: reading (and converting), writing */
} whole_solve;

enum { PRESCAN_ROWS = 8 };

/* Reads the source once, into the int32 matrix when there is room for it, and plans. */
static void plan_solve(whole_solve *w) {
    const float_source *src = w->src;
    const whole_job *job = w->job;
    double start = seconds_now();
    if (job->float_kernels) {
        w->plan.kernels = src->dtype;
        snprintf(w->plan.why, sizeof w->plan.why, "float path: asked for (float_kernels)");
        return;
    }
    /* The first rows alone first: a graph of fractions mostly shows one there, and then no
     * integer matrix is made for nothing (they are read again below: a few rows). */
    if (scan_first_rows(src, PRESCAN_ROWS, &w->plan)) {
        w->in = seconds_now() - start;
        return;
    }
    apsp_error room;
    apsp_status status = job->take(w->solver, src->n, APSP_INT32, job->kept, &room);
    if (status != APSP_OK)
        snprintf(w->room, sizeof w->room, "%.120s", room.message);
    w->seconds += seconds_now() - start;
    start = seconds_now();
    scan_and_plan(src, status == APSP_OK ? *job->kept : NULL, job->threads, &w->plan);
    w->in = seconds_now() - start;
    w->filled = status == APSP_OK;
    if (w->plan.kernels == src->dtype && w->filled) { /* its memory to the float path */
        apsp_matrix_destroy(*job->kept);
        *job->kept = NULL;
        w->filled = 0;
    }
}

/* The integer kernels on a copy of the source. When they cannot give the float path's answer
 * (no memory for the copy, a negative cycle) *again says why in a sentence for the report. */
static apsp_status solve_integer(whole_solve *w, apsp_report *report, char *again,
                                 size_t again_size, apsp_error *error) {
    const whole_job *job = w->job;
    const apsp_dtype kernels = w->plan.kernels;
    double start = seconds_now();
    apsp_error room;
    apsp_status status = kernels == APSP_INT32 && w->filled ? APSP_OK
                         : w->room[0] ? fail(&room, APSP_ERR_NO_MEMORY, "%s", w->room)
                                      : job->take(w->solver, w->src->n, kernels, job->kept, &room);
    if (status != APSP_OK) {
        snprintf(again, again_size, "float path: no room for the %s matrix (%.120s)",
                 apsp_dtype_name(kernels), room.message);
        return status;
    }
    apsp_matrix *integer = *job->kept;
    conversion c = {w->src, integer};
    const unsigned threads = threads_for(w->src, job->threads);
    if (!(kernels == APSP_INT32 && w->filled) &&
        parallel_slices(w->src->n, threads, convert_in, &c))
        status = fail(&room, APSP_ERR_NO_MEMORY, "no room for a row");
    w->seconds += seconds_now() - start;
    if (status != APSP_OK) {
        snprintf(again, again_size, "float path: no room for a row of the %s matrix",
                 apsp_dtype_name(kernels));
        return status;
    }
    status = job->solve(w->solver, integer, &w->plan.facts, w->src->io, report, error);
    if (status == APSP_ERR_NEGATIVE_CYCLE)
        snprintf(again, again_size,
                 "float path: the %s kernels met a negative cycle, past which float sums round: "
                 "solved again in %s",
                 apsp_dtype_name(kernels), apsp_dtype_name(w->src->dtype));
    start = seconds_now();
    if (status == APSP_OK && parallel_slices(w->src->n, threads, convert_out, &c))
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory for a row of %zu cells", w->src->n);
    if (status != APSP_OK) { /* a failed solve may leave the padding other than made */
        apsp_matrix_destroy(integer);
        *job->kept = NULL;
    }
    w->out = seconds_now() - start;
    return status;
}

/* The float path of the source: the matrix itself (its -0 cells made +0 first, as every float
 * solve reads them), or the rows by job->solve_rows. */
static apsp_status solve_floats(whole_solve *w, apsp_report *report, apsp_error *error) {
    const float_source *src = w->src;
    if (!src->m)
        return w->job->solve_rows(w->solver, src->n, src->dtype, src->io, report, error);
    matrix_clear_negative_zeros(src->m, w->job->threads);
    return w->job->solve(w->solver, src->m, NULL, NULL, report, error);
}

static apsp_status solve_source(apsp_solver *solver, const float_source *src, const whole_job *job,
                                apsp_report *report, apsp_error *error) {
    whole_solve w = {.solver = solver, .src = src, .job = job, .plan = {.kernels = src->dtype}};
    plan_solve(&w);
    apsp_status status;
    if (w.plan.kernels == src->dtype)
        status = solve_floats(&w, report, error);
    else {
        char again[sizeof w.plan.why] = "";
        status = solve_integer(&w, report, again, sizeof again, error);
        if (again[0]) {
            memcpy(w.plan.why, again, sizeof again);
            w.plan.kernels = src->dtype;
            status = solve_floats(&w, report, error);
        }
    }
    if (status != APSP_OK)
        return status;
    note(report, &w.plan, w.seconds + (src->m ? w.in + w.out : 0));
    if (report && !src->m && w.plan.kernels != src->dtype) { /* the float path timed its own */
        report->rows_in_seconds = w.in;
        report->rows_out_seconds = w.out;
    }
    return APSP_OK;
}

apsp_status whole_floats_solve(apsp_solver *solver, apsp_matrix *m, const whole_job *job,
                               apsp_report *report, apsp_error *error) {
    const float_source src = float_source_of_matrix(m);
    return solve_source(solver, &src, job, report, error);
}

apsp_status whole_floats_solve_rows(apsp_solver *solver, size_t n, apsp_dtype dtype,
                                    const apsp_row_io *io, const whole_job *job,
                                    apsp_report *report, apsp_error *error) {
    const float_source src = {.io = io, .n = n, .dtype = dtype};
    return solve_source(solver, &src, job, report, error);
}
