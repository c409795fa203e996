/* The scan of a float graph's cells (whole_scan.h): every cell read once, on the host threads
 * for a large matrix, for whether each is a whole number, the largest |weight| and whether one
 * is negative, the whole rows written into the int32 matrix as they are read; then the plan: the
 * kernels the weights allow, and why (whole_floats.h; whole_floats.c says why the integers'
 * answer is the float path's). */
#include "whole/whole_scan.h"

#include "base/parallel.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

static void plan_float_path(const whole_scan *s, whole_plan *plan) {
    plan->kernels = s->src->dtype;
    if (s->problem == PROBLEM_FRACTION) /* the digits that read back to the same value */
        snprintf(plan->why, sizeof plan->why, "float path: weight %.*g at (%zu, %zu) is not whole",
                 element_digits(s->src->dtype), s->bad_value, s->bad_i, s->bad_j);
    else
        snprintf(plan->why, sizeof plan->why, "float path: cell (%zu, %zu) is %g", s->bad_i,
                 s->bad_j, s->bad_value);
}

void whole_plan_bound(size_t n, apsp_dtype dtype, double most, whole_plan *plan) {
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

void scan_and_plan(const float_source *src, apsp_matrix *integer, unsigned threads,
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
        whole_plan_bound(src->n, src->dtype, s.most, plan);
        plan->facts = (cell_facts){s.negative, (uint64_t)s.most};
    }
}

int scan_first_rows(const float_source *src, size_t rows, whole_plan *plan) {
    whole_scan first = {.src = src};
    pthread_mutex_init(&first.lock, NULL);
    int failed = scan_rows(&first, 0, source_rows(src) < rows ? source_rows(src) : rows);
    pthread_mutex_destroy(&first.lock);
    if (failed || first.problem == PROBLEM_NONE)
        return 0;
    plan_float_path(&first, plan);
    return 1;
}
