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

#include "base/error.h"
#include "base/fault.h"
#include "base/matrix.h"
#include "base/parallel.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Where the float cells come from: the caller's padded matrix (its padding checked too), or the
 * caller's rows (apsp_row_io), each read into a row buffer of the reading thread. */
typedef struct float_source {
    apsp_matrix *m; /* NULL: io */
    const apsp_row_io *io;
    size_t n;
    apsp_dtype dtype;
} float_source;

/* The rows the scan reads and the cells of each: a matrix's padding too. */
static size_t source_rows(const float_source *src) {
    return src->m ? src->m->padded : src->n;
}

/* Row i of the source: the matrix's, or read by the caller into `buffer`. */
static const void *source_row(const float_source *src, size_t i, void *buffer) {
    if (src->m)
        return apsp_matrix_row_cells(src->m, i);
    src->io->read(src->io->context, i, buffer);
    return buffer;
}

/* A row buffer for a thread of a row source (NULL for a matrix source, which needs none);
 * *failed says whether the allocation failed. */
static void *source_buffer(const float_source *src, int *failed) {
    void *buffer = src->m ? NULL : apsp_malloc(src->n * apsp_dtype_size(src->dtype));
    *failed = !src->m && !buffer;
    return buffer;
}

/* What the reading of the cells found first: the float path's reason. */
typedef enum cell_problem {
    PROBLEM_NONE,
    PROBLEM_FRACTION, /* a finite weight that is not a whole number */
    PROBLEM_RULES,    /* NaN, -inf, a diagonal or padding cell not as made: refused */
} cell_problem;

typedef struct whole_scan {
    const float_source *src;
    apsp_matrix *integer; /* int32 cells written as they are read (NULL: read only) */
    pthread_mutex_t lock;
    cell_problem problem; /* at (bad_i, bad_j), the first in row-major order */
    size_t bad_i, bad_j;
    double bad_value;
    double most;  /* the largest |finite weight| */
    int negative; /* some finite weight is negative (-0.0 is not: it is read as 0) */
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

/* -0.0 is a whole 0: the float path reads it as +0.0 too (the solver clears it first). */
static inline cell_problem classify(size_t n, size_t i, size_t j, double c) {
    if (i == j)
        return c == 0 ? PROBLEM_NONE : PROBLEM_RULES;
    if (i >= n || j >= n)
        return c == INFINITY ? PROBLEM_NONE : PROBLEM_RULES;
    if (c == INFINITY)
        return PROBLEM_NONE;
    if (!isfinite(c))
        return PROBLEM_RULES;
    /* Past 2^53 every double is whole, and past the bound anyway; below it the round trip
     * through int64 is exact for whole numbers only (and cheaper than rint, a library call). */
    if (fabs(c) < 0x1p53 && (double)(int64_t)c != c)
        return PROBLEM_FRACTION;
    return PROBLEM_NONE;
}

/* One row read from column `first` on: *most raised to its largest |weight|, its first n cells
 * written into `out` (unless NULL) as int32 while they are whole numbers (a weight past int32 as
 * 0: the plan then takes the int64 kernels or the float path, and this matrix is not solved).
 * Returns the column of the first cell that is not whole, or `cells`. */
static inline __attribute__((always_inline)) size_t
scan_row(apsp_dtype type, size_t n, size_t i, const void *row, size_t first, size_t cells,
         int32_t *out, double *most, int *negative, cell_problem *problem) {
    double largest = *most;
    int below = 0;
    for (size_t j = first; j < cells; j++) {
        const double c = cell_number(type, row, j);
        const cell_problem p = classify(n, i, j, c);
        if (p != PROBLEM_NONE) {
            *problem = p;
            *most = largest;
            *negative |= below;
            return j;
        }
        const double size = fabs(c);
        if (i != j && c != INFINITY && size > largest)
            largest = size;
        below |= c < 0;
        if (out && j < n)
            out[j] = c == INFINITY ? APSP_INF : size < 0x1p31 ? (int32_t)c : 0;
    }
    *most = largest;
    *negative |= below;
    return cells;
}

/* The common row at the speed of memory: every cell +inf or a whole number below 2^31 in
 * magnitude, written as int32 into `out`, in one loop without branches that the compiler
 * vectorizes (the whole test: adding and subtracting 1.5 * 2^52 rounds a double below 2^51 to
 * a whole number, which leaves a whole number as it is; -0.0 passes as 0). Returns 1 with *most
 * raised to the row's largest |weight| and *negative set when it has a negative one, when the
 * row is such and its diagonal cell (i < n) 0; else 0, and scan_row says what the row holds. */
static inline __attribute__((always_inline)) int fast_row(apsp_dtype type, size_t i,
                                                          const void *row, size_t n, int32_t *out,
                                                          double *most, int *negative) {
    const double round = 0x1.8p52;
    int32_t largest = 0, ok = 1, below = 0;
    for (size_t j = 0; j < n; j++) {
        const double c = cell_number(type, row, j);
        const int infinite = c == INFINITY;
        const int whole = fabs(c) < 0x1p31 && (c + round) - round == c;
        const int32_t v = (int32_t)(whole ? c : 0);
        const int32_t size = v < 0 ? -v : v;
        ok &= infinite | whole;
        largest = size > largest ? size : largest;
        below |= v < 0;
        out[j] = infinite ? APSP_INF : v;
    }
    if (!ok || cell_number(type, row, i) != 0)
        return 0;
    if (largest > *most)
        *most = largest;
    *negative |= below;
    return 1;
}

/* Rows [begin, end) of the source: the problem of least (i, j) and the largest weight into s. */
static int scan_rows(void *context, size_t begin, size_t end) {
    whole_scan *s = context;
    const float_source *src = s->src;
    const size_t cells = source_rows(src);
    int failed;
    void *buffer = source_buffer(src, &failed);
    if (failed)
        return ENOMEM;
    cell_problem problem = PROBLEM_NONE;
    size_t bad_i = 0, bad_j = 0;
    double most = 0, bad_value = 0;
    int negative = 0;
    for (size_t i = begin; i < end && problem == PROBLEM_NONE; i++) {
        const void *row = source_row(src, i, buffer);
        int32_t *out = s->integer && i < src->n ? apsp_matrix_row(s->integer, i) : NULL;
        const int fast =
            out && (src->dtype == APSP_FLOAT32
                        ? fast_row(APSP_FLOAT32, i, row, src->n, out, &most, &negative)
                        : fast_row(APSP_FLOAT64, i, row, src->n, out, &most, &negative));
        /* The rest: a matrix's padding after a fast row, or the whole row to say what it holds. */
        const size_t first = fast ? src->n : 0;
        size_t j = src->dtype == APSP_FLOAT32 ? scan_row(APSP_FLOAT32, src->n, i, row, first, cells,
                                                         out, &most, &negative, &problem)
                                              : scan_row(APSP_FLOAT64, src->n, i, row, first, cells,
                                                         out, &most, &negative, &problem);
        if (problem != PROBLEM_NONE) {
            bad_i = i;
            bad_j = j;
            bad_value = cell_number(src->dtype, row, j);
        }
    }
    free(buffer);
    pthread_mutex_lock(&s->lock);
    if (problem != PROBLEM_NONE && (s->problem == PROBLEM_NONE || bad_i < s->bad_i ||
                                    (bad_i == s->bad_i && bad_j < s->bad_j))) {
        s->problem = problem;
        s->bad_i = bad_i;
        s->bad_j = bad_j;
        s->bad_value = bad_value;
    }
    if (most > s->most)
        s->most = most;
    s->negative |= negative;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

enum { PARALLEL_BYTES = 16 << 20 };

/* The threads for a pass over the source's cells: one for a small matrix. */
static unsigned threads_for(const float_source *src, unsigned threads) {
    size_t rows = source_rows(src);
    return rows * rows * apsp_dtype_size(src->dtype) < PARALLEL_BYTES ? 1 : threads;
}

/* The kernels the weights allow, and why (whole_floats.h). */
typedef struct whole_plan {
    apsp_dtype kernels;
    char why[192];
    /* For the integer kernels: what matrix_check_cells would find in the integer matrix, read
     * off every cell by the scan (a whole weight within the bound converts exactly, -0.0 to 0),
     * so that the driver need not read it again. */
    cell_facts facts;
} whole_plan;

static void plan_float_path(const whole_scan *s, whole_plan *plan) {
    plan->kernels = s->src->dtype;
    if (s->problem == PROBLEM_FRACTION) /* the digits that read back to the same value */
        snprintf(plan->why, sizeof plan->why, "float path: weight %.*g at (%zu, %zu) is not whole",
                 s->src->dtype == APSP_FLOAT32 ? 9 : 17, s->bad_value, s->bad_i, s->bad_j);
    else
        snprintf(plan->why, sizeof plan->why, "float path: cell (%zu, %zu) is %g", s->bad_i,
                 s->bad_j, s->bad_value);
}

/* Which integer kernels hold every sum exactly, once the cells are whole (whole_floats.h). */
static void plan_bound(size_t n, apsp_dtype dtype, double most, whole_plan *plan) {
    const int float32 = dtype == APSP_FLOAT32;
    const unsigned digits = float32 ? 24 : 53; /* every integer up to 2^digits is exact */
    const uint64_t exact = (uint64_t)1 << digits, steps = n > 1 ? n - 1 : 1;
    const char *name = apsp_dtype_name(dtype);
    plan->kernels = dtype;
    if (most > (double)exact || (uint64_t)most > exact / 2 / steps) {
        snprintf(plan->why, sizeof plan->why,
                 "float path: weight %.17g with V = %zu lets a sum of two distances pass 2^%u, "
                 "where %s rounds",
                 most, n, digits, name);
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

/* Reads every cell of the source once, writing them into `integer` (int32, unless NULL) as it
 * goes, and says which kernels to run. A row buffer that finds no memory: the float path. */
static void scan_and_plan(const float_source *src, apsp_matrix *integer, unsigned threads,
                          whole_plan *plan) {
    whole_scan s = {.src = src, .integer = integer};
    pthread_mutex_init(&s.lock, NULL);
    int failed = parallel_slices(source_rows(src), threads_for(src, threads), scan_rows, &s);
    pthread_mutex_destroy(&s.lock);
    if (failed) {
        plan->kernels = src->dtype;
        snprintf(plan->why, sizeof plan->why, "float path: no room for a row of %zu cells", src->n);
    } else if (s.problem != PROBLEM_NONE)
        plan_float_path(&s, plan);
    else {
        plan_bound(src->n, src->dtype, s.most, plan);
        plan->facts = (cell_facts){s.negative, (uint64_t)s.most};
    }
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
    whole_scan first = {.src = src};
    pthread_mutex_init(&first.lock, NULL);
    int failed =
        scan_rows(&first, 0, source_rows(src) < PRESCAN_ROWS ? source_rows(src) : PRESCAN_ROWS);
    pthread_mutex_destroy(&first.lock);
    if (!failed && first.problem != PROBLEM_NONE) {
        plan_float_path(&first, &w->plan);
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
    const float_source src = {.m = m, .n = m->n, .dtype = m->dtype};
    return solve_source(solver, &src, job, report, error);
}

apsp_status whole_floats_solve_rows(apsp_solver *solver, size_t n, apsp_dtype dtype,
                                    const apsp_row_io *io, const whole_job *job,
                                    apsp_report *report, apsp_error *error) {
    const float_source src = {.io = io, .n = n, .dtype = dtype};
    return solve_source(solver, &src, job, report, error);
}
