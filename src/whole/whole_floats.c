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
 * With a negative cycle nothing bounds the sums, so the integers' answer is not used (below). */
#include "whole/whole_floats.h"

#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* What the reading of the cells found first: the float path's reason. */
typedef enum cell_problem {
    PROBLEM_NONE,
    PROBLEM_FRACTION,      /* a finite weight that is not a whole number */
    PROBLEM_NEGATIVE_ZERO, /* -0.0: the integers would give it back as +0.0 (a guard: the
                            * solver makes -0 cells +0 before, base/matrix.h) */
    PROBLEM_RULES,         /* NaN, -inf, a diagonal or padding cell not as made: refused */
} cell_problem;

typedef struct whole_scan {
    const apsp_matrix *m;
    pthread_mutex_t lock;
    cell_problem problem; /* at (bad_i, bad_j), the first in row-major order */
    size_t bad_i, bad_j;
    double most; /* the largest |finite weight| */
} whole_scan;

/* Cell j of a row of `type` as a double: the integer types' marker as +inf. Whole numbers of the
 * bound's size (at most 2^53) are exact in a double, and so are float32 values. Inlined with a
 * constant type, so that each conversion below is a loop of its own. */
static inline __attribute__((always_inline)) double cell_number(apsp_dtype type, const void *row,
                                                                size_t j) {
    switch (type) {
    case APSP_INT32: {
        int32_t v = ((const int32_t *)row)[j];
        return v == APSP_INF ? (double)INFINITY : (double)v;
    }
    case APSP_INT64: {
        int64_t v = ((const int64_t *)row)[j];
        return v == APSP_INF64 ? (double)INFINITY : (double)v;
    }
    case APSP_FLOAT32:
        return (double)((const float *)row)[j];
    case APSP_FLOAT64:
        break;
    }
    return ((const double *)row)[j];
}

static cell_problem classify(const apsp_matrix *m, size_t i, size_t j, double c) {
    if (i == j)
        return c == 0 && !signbit(c) ? PROBLEM_NONE : PROBLEM_RULES;
    if (i >= m->n || j >= m->n)
        return c == INFINITY ? PROBLEM_NONE : PROBLEM_RULES;
    if (c == INFINITY)
        return PROBLEM_NONE;
    if (!isfinite(c))
        return PROBLEM_RULES;
    /* Past 2^53 every double is whole, and past the bound anyway; below it the round trip
     * through int64 is exact for whole numbers only (and cheaper than rint, a library call). */
    if (fabs(c) < 0x1p53 && (double)(int64_t)c != c)
        return PROBLEM_FRACTION;
    return c == 0 && signbit(c) ? PROBLEM_NEGATIVE_ZERO : PROBLEM_NONE;
}

static int scan_rows(void *context, size_t begin, size_t end) {
    whole_scan *s = context;
    const apsp_matrix *m = s->m;
    cell_problem problem = PROBLEM_NONE;
    size_t bad_i = 0, bad_j = 0;
    double most = 0;
    for (size_t i = begin; i < end && problem == PROBLEM_NONE; i++) {
        const void *row = apsp_matrix_row_cells(m, i);
        for (size_t j = 0; j < m->padded; j++) {
            double c = cell_number(m->dtype, row, j);
            cell_problem p = classify(m, i, j, c);
            if (p != PROBLEM_NONE) {
                problem = p;
                bad_i = i;
                bad_j = j;
                break;
            }
            if (i != j && c != INFINITY && fabs(c) > most)
                most = fabs(c);
        }
    }
    pthread_mutex_lock(&s->lock);
    if (problem != PROBLEM_NONE && (s->problem == PROBLEM_NONE || bad_i < s->bad_i ||
                                    (bad_i == s->bad_i && bad_j < s->bad_j))) {
        s->problem = problem;
        s->bad_i = bad_i;
        s->bad_j = bad_j;
    }
    if (most > s->most)
        s->most = most;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

enum { PARALLEL_BYTES = 16 << 20 };

static unsigned threads_for(const apsp_matrix *m, unsigned threads) {
    size_t bytes = m->padded * m->stride * apsp_dtype_size(m->dtype);
    return bytes < PARALLEL_BYTES ? 1 : threads;
}

/* The kernels the weights allow, and why (whole_floats.h). */
typedef struct whole_plan {
    apsp_dtype kernels;
    char why[192];
} whole_plan;

static void plan_float_path(const apsp_matrix *m, const whole_scan *s, whole_plan *plan) {
    char text[40];
    double c = cell_number(m->dtype, apsp_matrix_row_cells(m, s->bad_i), s->bad_j);
    plan->kernels = m->dtype;
    if (s->problem == PROBLEM_FRACTION)
        snprintf(plan->why, sizeof plan->why, "float path: weight %s at (%zu, %zu) is not whole",
                 matrix_cell_text(m, s->bad_i, s->bad_j, text, sizeof text), s->bad_i, s->bad_j);
    else if (s->problem == PROBLEM_NEGATIVE_ZERO)
        snprintf(plan->why, sizeof plan->why,
                 "float path: weight -0 at (%zu, %zu), whose sign the integers do not keep",
                 s->bad_i, s->bad_j);
    else
        snprintf(plan->why, sizeof plan->why, "float path: cell (%zu, %zu) is %g", s->bad_i,
                 s->bad_j, c);
}

/* Which integer kernels hold every sum exactly, once the cells are whole (whole_floats.h). */
static void plan_bound(const apsp_matrix *m, double most, whole_plan *plan) {
    const int float32 = m->dtype == APSP_FLOAT32;
    const unsigned digits = float32 ? 24 : 53; /* every integer up to 2^digits is exact */
    const uint64_t exact = (uint64_t)1 << digits, steps = m->n > 1 ? m->n - 1 : 1;
    const char *name = apsp_dtype_name(m->dtype);
    plan->kernels = m->dtype;
    if (most > (double)exact || (uint64_t)most > exact / 2 / steps) {
        snprintf(plan->why, sizeof plan->why,
                 "float path: weight %.17g with V = %zu lets a sum of two distances pass 2^%u, "
                 "where %s rounds",
                 most, m->n, digits, name);
        return;
    }
    const uint64_t w = (uint64_t)most, sums = 2 * steps * w;
    if (w <= (uint64_t)(APSP_INF - 1) / steps)
        plan->kernels = APSP_INT32;
    else if (w <= (uint64_t)(APSP_INF64 - 1) / steps)
        plan->kernels = APSP_INT64;
    snprintf(plan->why, sizeof plan->why,
             "%s graph with whole weights: %s kernels (2 (V - 1) max|w| = %" PRIu64
             " <= 2^%u, exact in %s)",
             name, apsp_dtype_name(plan->kernels), sums, digits, name);
}

static void make_plan(const apsp_matrix *m, unsigned threads, whole_plan *plan) {
    whole_scan s = {.m = m};
    pthread_mutex_init(&s.lock, NULL);
    parallel_slices(m->padded, threads_for(m, threads), scan_rows, &s);
    pthread_mutex_destroy(&s.lock);
    if (s.problem != PROBLEM_NONE)
        plan_float_path(m, &s, plan);
    else
        plan_bound(m, s.most, plan);
}

/* ---- the conversions ----------------------------------------------------------------------- */

/* The inverse: +inf as the integer types' marker. */
static inline __attribute__((always_inline)) void put_number(apsp_dtype type, void *row, size_t j,
                                                             double x) {
    switch (type) {
    case APSP_INT32:
        ((int32_t *)row)[j] = x == INFINITY ? APSP_INF : (int32_t)x;
        break;
    case APSP_INT64:
        ((int64_t *)row)[j] = x == INFINITY ? APSP_INF64 : (int64_t)x;
        break;
    case APSP_FLOAT32:
        ((float *)row)[j] = (float)x;
        break;
    case APSP_FLOAT64:
        ((double *)row)[j] = x;
        break;
    }
}

static inline __attribute__((always_inline)) void convert_row(apsp_dtype from, const void *row,
                                                              apsp_dtype to, void *out, size_t n) {
    for (size_t j = 0; j < n; j++)
        put_number(to, out, j, cell_number(from, row, j));
}

typedef struct conversion {
    const apsp_matrix *from;
    apsp_matrix *to;
} conversion;

/* Rows [begin, end) of the n x n cells, from one type into the other, either way: float32 and
 * int32 (float32's bound is within int32's rule), float64 and int32 or int64. */
static int convert_rows(void *context, size_t begin, size_t end) {
    const conversion *c = context;
    const apsp_dtype from = c->from->dtype, to = c->to->dtype;
    const size_t n = c->from->n;
    for (size_t i = begin; i < end; i++) {
        const void *row = apsp_matrix_row_cells(c->from, i);
        void *out = apsp_matrix_row_cells(c->to, i);
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
    return 0;
}

static void convert(const apsp_matrix *from, apsp_matrix *to, unsigned threads) {
    conversion c = {from, to};
    parallel_slices(from->n, threads_for(from, threads), convert_rows, &c);
}

/* ---- the solve ----------------------------------------------------------------------------- */

static void note(apsp_report *report, const whole_plan *plan, double seconds) {
    if (!report)
        return;
    report->kernels = plan->kernels;
    snprintf(report->kernels_why, sizeof report->kernels_why, "%s", plan->why);
    report->whole_seconds = seconds;
}

/* The integer matrix for m: the kept one when it has m's size and the kernels' type (its
 * padding as made: a successful solve leaves it so), else a new one from the solver. */
static apsp_status take_integer(apsp_solver *solver, const apsp_matrix *m, apsp_dtype kernels,
                                apsp_matrix **kept, apsp_error *error) {
    if (*kept && (*kept)->n == m->n && (*kept)->dtype == kernels)
        return APSP_OK;
    apsp_matrix_destroy(*kept); /* before the new one: pinned memory is scarce */
    *kept = NULL;
    return apsp_solver_matrix_create(solver, m->n, kernels, kept, error);
}

/* The integer kernels on a copy of m. When they cannot give the float path's answer (no memory
 * for the copy, a negative cycle) *again says why in a sentence for the report. */
static apsp_status solve_integer(apsp_solver *solver, apsp_matrix *m, const whole_plan *plan,
                                 const whole_job *job, apsp_report *report, double *seconds,
                                 char *again, size_t again_size, apsp_error *error) {
    double start = seconds_now();
    apsp_error room;
    apsp_status status = take_integer(solver, m, plan->kernels, job->kept, &room);
    if (status != APSP_OK) {
        snprintf(again, again_size, "float path: no room for the %s matrix (%.120s)",
                 apsp_dtype_name(plan->kernels), room.message);
        return status;
    }
    apsp_matrix *integer = *job->kept;
    convert(m, integer, job->threads);
    *seconds += seconds_now() - start;
    status = job->solve(solver, integer, report, error);
    if (status == APSP_ERR_NEGATIVE_CYCLE)
        snprintf(again, again_size,
                 "float path: the %s kernels met a negative cycle, past which float sums round: "
                 "solved again in %s",
                 apsp_dtype_name(plan->kernels), apsp_dtype_name(m->dtype));
    start = seconds_now();
    if (status == APSP_OK)
        convert(integer, m, job->threads);
    else { /* a failed solve may leave the padding other than made */
        apsp_matrix_destroy(integer);
        *job->kept = NULL;
    }
    *seconds += seconds_now() - start;
    return status;
}

apsp_status whole_floats_solve(apsp_solver *solver, apsp_matrix *m, const whole_job *job,
                               apsp_report *report, apsp_error *error) {
    whole_plan plan = {.kernels = m->dtype};
    double start = seconds_now();
    if (job->float_kernels)
        snprintf(plan.why, sizeof plan.why, "float path: asked for (float_kernels)");
    else
        make_plan(m, job->threads, &plan);
    double seconds = seconds_now() - start;
    if (plan.kernels == m->dtype) {
        apsp_status status = job->solve(solver, m, report, error);
        if (status == APSP_OK)
            note(report, &plan, seconds);
        return status;
    }
    char again[sizeof plan.why] = "";
    apsp_status status =
        solve_integer(solver, m, &plan, job, report, &seconds, again, sizeof again, error);
    if (again[0]) {
        memcpy(plan.why, again, sizeof again);
        plan.kernels = m->dtype;
        status = job->solve(solver, m, report, error);
    }
    if (status == APSP_OK)
        note(report, &plan, seconds);
    return status;
}
