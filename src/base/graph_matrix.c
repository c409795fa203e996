/* The weight rule of each distance type, checking a graph against it, and the padded matrix
 * made from the graph (apsp_graph_to_matrix_typed). */
#include "base/element_types.h"
#include "base/error.h"
#include "base/graph.h"
#include "base/matrix.h"
#include "base/parallel.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

enum { PARALLEL_EDGES = 1 << 18 /* fewer edges are checked and placed on one thread */ };

static int is_integer_type(apsp_dtype dtype) {
    return dtype == APSP_INT32 || dtype == APSP_INT64;
}

weight_rule weight_rule_for(size_t vertices, apsp_dtype dtype) {
    weight_rule rule = {INT64_MIN, INT64_MAX};
    if (vertices == 0 || !is_integer_type(dtype))
        return rule;
    int64_t inf = dtype == APSP_INT32 ? APSP_INF : APSP_INF64;
    if (vertices == 1) /* only self-loops, which are ignored: any value of the type */
        return dtype == APSP_INT32 ? (weight_rule){INT32_MIN, INT32_MAX} : rule;
    rule.most = (inf - 1) / (int64_t)(vertices - 1);
    rule.least = -rule.most;
    return rule;
}

/* "weight W is too large/negative: ..." with W as given in `value`. */
static const char *outside_rule(const char *value, int negative, size_t vertices, apsp_dtype dtype,
                                char *buf, size_t size) {
    weight_rule rule = weight_rule_for(vertices, dtype);
    snprintf(buf, size,
             "weight %s is too %s: with V = %zu, %s weights outside [%" PRId64 ", %" PRId64
             "] could give distances that reach the unreachable marker %" PRId64,
             value, negative ? "negative" : "large", vertices, apsp_dtype_name(dtype), rule.least,
             rule.most, dtype == APSP_INT32 ? (int64_t)APSP_INF : APSP_INF64);
    return buf;
}

const char *weight_problem(int64_t w, size_t vertices, apsp_dtype dtype, char *buf, size_t size) {
    weight_rule rule = weight_rule_for(vertices, dtype);
    if (w >= rule.least && w <= rule.most)
        return NULL;
    char value[24];
    snprintf(value, sizeof value, "%" PRId64, w);
    return outside_rule(value, w < 0, vertices, dtype, buf, size);
}

/* Whether a finite w is a whole number (every double of 2^52 or more is one). */
static int is_whole(double w) {
    return fabs(w) >= 0x1p52 || (double)(int64_t)w == w;
}

double real_weight_most(size_t vertices, apsp_dtype dtype) {
    double largest = dtype == APSP_FLOAT32 ? FLT_MAX : DBL_MAX;
    if (vertices <= 1)
        return largest;
    /* Each addition may round up by half an ulp: V - 1 of them by at most (V - 1) epsilons. */
    double edges = (double)(vertices - 1);
    double epsilon = dtype == APSP_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
    return largest / edges / (1 + edges * epsilon);
}

static double smallest_normal(apsp_dtype dtype) {
    return dtype == APSP_FLOAT32 ? FLT_MIN : DBL_MIN;
}

/* Whether a real weight suits the type (real_weight_problem's test, without a message). */
static int real_fits(double w, size_t vertices, apsp_dtype dtype) {
    if (!isfinite(w))
        return 0;
    if (!is_integer_type(dtype))
        return w == 0 ||
               (fabs(w) >= smallest_normal(dtype) && fabs(w) <= real_weight_most(vertices, dtype));
    if (!is_whole(w) || fabs(w) >= 0x1p63)
        return 0;
    weight_rule rule = weight_rule_for(vertices, dtype);
    return (int64_t)w >= rule.least && (int64_t)w <= rule.most;
}

/* Why a finite w breaks a floating-point type's rule. */
static void outside_real_rule(double w, const char *value, size_t vertices, apsp_dtype dtype,
                              char *buf, size_t size) {
    const char *name = apsp_dtype_name(dtype);
    int digits = element_digits(dtype); /* what reads back to the same value */
    double most = real_weight_most(vertices, dtype), largest = real_weight_most(1, dtype);
    if (fabs(w) > largest)
        snprintf(buf, size, "weight %s is outside %s's range (largest %.*g)", value, name, digits,
                 largest);
    else if (fabs(w) < smallest_normal(dtype))
        snprintf(buf, size,
                 "weight %s is not 0 but below %s's smallest normal number %.*g: it would be "
                 "rounded to 0 or lose its precision, which can hide a negative cycle",
                 value, name, digits, smallest_normal(dtype));
    else
        snprintf(buf, size,
                 "weight %s is too %s: with V = %zu, %s weights outside [%.*g, %.*g] could give "
                 "distances that overflow to %sinf",
                 value, w < 0 ? "negative" : "large", vertices, name, digits, -most, digits, most,
                 w < 0 ? "-" : "");
}

const char *real_weight_problem(double w, const char *written, size_t vertices, apsp_dtype dtype,
                                char *buf, size_t size) {
    if (real_fits(w, vertices, dtype))
        return NULL;
    char value[48];
    if (written)
        snprintf(value, sizeof value, "%.44s", written);
    else
        snprintf(value, sizeof value, "%.17g", w);
    if (!isfinite(w))
        snprintf(buf, size, "weight %s is not finite", value);
    else if (!is_integer_type(dtype))
        outside_real_rule(w, value, vertices, dtype, buf, size);
    else if (!is_whole(w))
        snprintf(buf, size, "weight %s is not a whole number, which %s distances need", value,
                 apsp_dtype_name(dtype));
    else
        outside_rule(value, w < 0, vertices, dtype, buf, size);
    return buf;
}

apsp_dtype read_rule_dtype(const apsp_read_options *options) {
    return options->dtype_auto ? APSP_INT64 : options->dtype;
}

int read_takes_fractions(const apsp_read_options *options) {
    return options->dtype_auto || !is_integer_type(options->dtype);
}

apsp_dtype read_real_dtype(const apsp_read_options *options) {
    return options->dtype_auto ? APSP_FLOAT64 : options->dtype;
}

apsp_dtype apsp_graph_dtype(const apsp_graph *g) {
    if (g->real_weight)
        return APSP_FLOAT64;
    weight_rule narrow = weight_rule_for(g->vertices, APSP_INT32);
    weight_rule wide = weight_rule_for(g->vertices, APSP_INT64);
    apsp_dtype need = APSP_INT32;
    for (size_t e = 0; e < g->edges; e++) {
        int64_t w = g->weight[e];
        if (w < wide.least || w > wide.most)
            return APSP_FLOAT64;
        if (w < narrow.least || w > narrow.most)
            need = APSP_INT64;
    }
    return need;
}

/* ---- the path bound -------------------------------------------------------------------------- */

static uint64_t magnitude(int64_t w) {
    return w < 0 ? 0 - (uint64_t)w : (uint64_t)w;
}

static uint64_t add_saturating(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The weights a bound is taken over: self-loops (source[e] == target[e]) left out where the
 * endpoints are given. */
typedef struct weight_list {
    const int64_t *weights;
    const int32_t *source, *target;
    size_t edges;
} weight_list;

/* How many of the `left` largest values fall in each bucket of the byte at `shift`, among those
 * whose higher bytes are `prefix`, and their sums: one pass of the radix selection below. */
typedef struct byte_buckets {
    size_t count[256];
    uint64_t sum[256];
} byte_buckets;

/* One pass over the weights, its slices on threads: the OR of every magnitude (the top byte's
 * search), or the buckets of the byte at `shift`. Each slice adds its own into the pass's under
 * the lock, so that the result is the same for any number of slices. */
typedef struct bucket_pass {
    const weight_list *list;
    unsigned shift;
    uint64_t prefix;
    byte_buckets buckets;
    uint64_t all_bits;
    pthread_mutex_t lock;
} bucket_pass;

static int counts_edge(const weight_list *list, size_t e) {
    return !list->source || list->source[e] != list->target[e];
}

static void add_buckets(bucket_pass *pass, const byte_buckets *b) {
    pthread_mutex_lock(&pass->lock);
    for (unsigned i = 0; i < 256; i++) {
        pass->buckets.count[i] += b->count[i];
        pass->buckets.sum[i] = add_saturating(pass->buckets.sum[i], b->sum[i]);
    }
    pthread_mutex_unlock(&pass->lock);
}

static int or_slice(void *context, size_t begin, size_t end) {
    bucket_pass *pass = context;
    uint64_t bits = 0;
    for (size_t e = begin; e < end; e++)
        if (counts_edge(pass->list, e))
            bits |= magnitude(pass->list->weights[e]);
    pthread_mutex_lock(&pass->lock);
    pass->all_bits |= bits;
    pthread_mutex_unlock(&pass->lock);
    return 0;
}

static int bucket_slice(void *context, size_t begin, size_t end) {
    bucket_pass *pass = context;
    const weight_list *list = pass->list;
    const unsigned shift = pass->shift;
    byte_buckets b;
    memset(&b, 0, sizeof b);
    for (size_t e = begin; e < end; e++) {
        if (!counts_edge(list, e))
            continue;
        uint64_t x = magnitude(list->weights[e]);
        if (shift < 56 &&
            (x >> (shift + 8)) != pass->prefix) /* (every value matches the top byte) */
            continue;
        unsigned byte = (unsigned)(x >> shift) & 255u;
        b.count[byte]++;
        b.sum[byte] = add_saturating(b.sum[byte], x);
    }
    add_buckets(pass, &b);
    return 0;
}

/* `slice` over every weight, on up to `threads` threads (one below PARALLEL_MIN_BYTES). */
static void run_pass(bucket_pass *pass, slice_fn slice, unsigned threads) {
    memset(&pass->buckets, 0, sizeof pass->buckets);
    pass->all_bits = 0;
    size_t bytes = pass->list->edges * sizeof *pass->list->weights;
    (void)parallel_slices(pass->list->edges, threads_for_bytes(bytes, threads), slice, pass);
}

/* The shift of the highest nonzero byte of the largest magnitude (0 for none): the passes start
 * there, since every higher byte is 0 (weights below 2^16: two passes, not eight). */
static int top_byte_shift(bucket_pass *pass, unsigned threads) {
    run_pass(pass, or_slice, threads);
    int shift = 0;
    while (shift < 56 && pass->all_bits >> (shift + 8))
        shift += 8;
    return shift;
}

/* A radix selection, byte by byte from the top: each pass adds the buckets wholly among the
 * `left` largest and narrows to the one that holds the boundary; after the last byte the values
 * left in it are all equal. Nine passes over the weights at most, no copy of them, exact (and
 * saturating at UINT64_MAX). */
uint64_t weights_path_bound(const int64_t *weights, const int32_t *source, const int32_t *target,
                            size_t edges, size_t vertices, unsigned threads) {
    const weight_list list = {weights, source, target, edges};
    bucket_pass pass = {.list = &list};
    pthread_mutex_init(&pass.lock, NULL);
    size_t left = vertices > 1 ? vertices - 1 : 0;
    uint64_t total = 0, prefix = 0;
    int boundary = 0;
    for (int shift = top_byte_shift(&pass, threads); shift >= 0 && left > 0 && boundary >= 0;
         shift -= 8) {
        pass.shift = (unsigned)shift;
        pass.prefix = prefix;
        run_pass(&pass, bucket_slice, threads);
        const byte_buckets *b = &pass.buckets;
        boundary = -1;
        for (int byte = 255; byte >= 0 && left > 0 && boundary < 0; byte--) {
            if (b->count[byte] <= left) {
                total = add_saturating(total, b->sum[byte]);
                left -= b->count[byte];
            } else
                boundary = byte;
        }
        if (boundary >= 0)
            prefix = (prefix << 8) | (uint64_t)boundary;
    }
    pthread_mutex_destroy(&pass.lock);
    if (boundary < 0) /* fewer than V - 1 edges, or the boundary met exactly */
        return total;
    uint64_t value = prefix; /* the last byte's boundary bucket: `left` copies of one value */
    return left == 0                                 ? total
           : value != 0 && left > UINT64_MAX / value ? UINT64_MAX
                                                     : add_saturating(total, value * left);
}

int graph_int32_by_path_bound(const apsp_graph *g, unsigned threads) {
    if (g->real_weight || graph_has_negative(g))
        return 0;
    uint64_t bound =
        weights_path_bound(g->weight, g->source, g->target, g->edges, g->vertices, threads);
    return bound <= (uint64_t)APSP_INF - 1;
}

apsp_dtype apsp_graph_sources_dtype(const apsp_graph *g) {
    apsp_dtype dtype = apsp_graph_dtype(g);
    return dtype == APSP_INT64 && graph_int32_by_path_bound(g, 0) ? APSP_INT32 : dtype;
}

/* ---- checking -------------------------------------------------------------------------------- */

typedef struct edge_scan {
    const apsp_graph *g;
    apsp_matrix *m;
    apsp_dtype dtype;
    weight_rule rule;
    atomic_size_t first_bad; /* the least index of an edge that breaks a rule; SIZE_MAX: none */
} edge_scan;

static int weight_ok(const edge_scan *s, size_t e) {
    const apsp_graph *g = s->g;
    if (!g->real_weight)
        return g->weight[e] >= s->rule.least && g->weight[e] <= s->rule.most;
    return real_fits(g->real_weight[e], g->vertices, s->dtype);
}

static int edge_ok(const edge_scan *s, size_t e) {
    const apsp_graph *g = s->g;
    int32_t n = (int32_t)g->vertices;
    return g->source[e] >= 0 && g->source[e] < n && g->target[e] >= 0 && g->target[e] < n &&
           weight_ok(s, e);
}

static int check_edges(void *context, size_t begin, size_t end) {
    edge_scan *s = context;
    for (size_t e = begin; e < end; e++) {
        if (edge_ok(s, e))
            continue;
        size_t seen = atomic_load(&s->first_bad);
        while (e < seen && !atomic_compare_exchange_weak(&s->first_bad, &seen, e)) {
        }
        break;
    }
    return 0;
}

static apsp_status refuse_edge(const apsp_graph *g, size_t e, apsp_dtype dtype, apsp_error *error) {
    char why[320];
    int32_t bad =
        g->source[e] < 0 || (size_t)g->source[e] >= g->vertices ? g->source[e] : g->target[e];
    if (bad < 0 || (size_t)bad >= g->vertices)
        return fail(error, APSP_ERR_USAGE, "graph edge %zu: %s vertex %d is out of range [0, %zu)",
                    e, bad == g->source[e] ? "source" : "target", bad, g->vertices);
    const char *problem =
        g->real_weight
            ? real_weight_problem(g->real_weight[e], NULL, g->vertices, dtype, why, sizeof why)
            : weight_problem(g->weight[e], g->vertices, dtype, why, sizeof why);
    return fail(error, APSP_ERR_USAGE, "graph edge %zu: %s", e, problem ? problem : "refused");
}

apsp_status graph_check_typed(const apsp_graph *g, apsp_dtype dtype, unsigned threads,
                              apsp_error *error) {
    if (!g || (g->edges > 0 && (!g->source || !g->target || (!g->weight && !g->real_weight))))
        return fail(error, APSP_ERR_USAGE, "no graph, or a graph without its edge arrays");
    if (apsp_dtype_size(dtype) == 0)
        return fail(error, APSP_ERR_USAGE, "element type %d is none of apsp_dtype's", (int)dtype);
    if (g->vertices == 0 || g->vertices > INT32_MAX)
        return fail(error, g->vertices ? APSP_ERR_TOO_LARGE : APSP_ERR_USAGE,
                    "V = %zu: from 1 to %d vertices are supported", g->vertices, INT32_MAX);
    edge_scan s = {
        .g = g, .dtype = dtype, .rule = weight_rule_for(g->vertices, dtype), .first_bad = SIZE_MAX};
    parallel_slices(g->edges, g->edges < PARALLEL_EDGES ? 1 : threads, check_edges, &s);
    if (atomic_load(&s.first_bad) != SIZE_MAX)
        return refuse_edge(g, atomic_load(&s.first_bad), dtype, error);
    return APSP_OK;
}

apsp_status graph_check(const apsp_graph *g, unsigned threads, apsp_error *error) {
    if (g && g->real_weight && g->edges > 0)
        return fail(error, APSP_ERR_USAGE,
                    "a graph of real weights has no int32 rows to stream: make its matrix with "
                    "apsp_graph_to_matrix_typed");
    return graph_check_typed(g, APSP_INT32, threads, error);
}

/* ---- the matrix ------------------------------------------------------------------------------ */

/* Edge e into cell (i, j) of row `row` when less than what is there: the least of repeated edges
 * counts. The weights passed graph_check_typed, so each fits the type. */
static void place_edge(const edge_scan *s, void *row, size_t e, int32_t j) {
    switch (s->dtype) {
#define PLACE_EDGE(TYPE, NAME, C, NONE, REAL, DIGITS)                                              \
    case TYPE: {                                                                                   \
        C w, *cell = (C *)row + j;                                                                 \
        graph_weight_as(s->g, e, TYPE, &w);                                                        \
        *cell = w < *cell ? w : *cell;                                                             \
        break;                                                                                     \
    }
        ELEMENT_TYPES(PLACE_EDGE)
#undef PLACE_EDGE
    }
}

/* Rows [begin, end) get their edges: each slice reads the whole list and keeps the edges that
 * leave its rows, so no two threads write one cell. */
static int place_edges(void *context, size_t begin, size_t end) {
    const edge_scan *s = context;
    const apsp_graph *g = s->g;
    for (size_t e = 0; e < g->edges; e++) {
        size_t i = (size_t)g->source[e];
        int32_t j = g->target[e];
        if (i < begin || i >= end || (int32_t)i == j)
            continue; /* another slice's row, or a self-loop (the diagonal stays 0) */
        place_edge(s, apsp_matrix_row_cells(s->m, i), e, j);
    }
    return 0;
}

apsp_status apsp_graph_to_matrix_threads(const apsp_graph *g, apsp_dtype dtype, int threads,
                                         apsp_matrix **out, apsp_error *error) {
    *out = NULL;
    const unsigned host_threads = threads_of(threads);
    apsp_status status = graph_check_typed(g, dtype, host_threads, error);
    if (status != APSP_OK)
        return status;
    edge_scan s = {.g = g, .dtype = dtype};
    status = matrix_create_threads(g->vertices, dtype, host_threads, &s.m, error);
    if (status != APSP_OK)
        return status;
    parallel_slices(g->vertices, g->edges < PARALLEL_EDGES ? 1 : host_threads, place_edges, &s);
    *out = s.m;
    return APSP_OK;
}

apsp_status apsp_graph_to_matrix_typed(const apsp_graph *g, apsp_dtype dtype, apsp_matrix **out,
                                       apsp_error *error) {
    return apsp_graph_to_matrix_threads(g, dtype, 0, out, error);
}

apsp_status apsp_graph_to_matrix(const apsp_graph *g, apsp_matrix **out, apsp_error *error) {
    return apsp_graph_to_matrix_typed(g, APSP_INT32, out, error);
}
