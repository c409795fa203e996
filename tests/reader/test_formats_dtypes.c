/* Typed graphs and matrices: real weights in the readers (good and malformed files, each refusal
 * naming its line and quoting the weight as written), the floating-point rule (sums that could
 * overflow to inf, nonzero weights below the normal range), the read options' dtype and its
 * weight rule, apsp_graph_to_matrix_typed's
 * rule per type at its boundaries, apsp_graph_dtype, and the writers in every type: the npy
 * header and bytes, the text, and hw3 from int64 (written when every distance fits, refused
 * naming a pair before the file is touched). Expected values are spelled out here, not computed
 * by the library.
 *
 * `test-formats-dtypes --write DIR` writes one small matrix per type as DIR/TYPE.npy and
 * DIR/TYPE.txt for tests/cli/test_dtypes.py, which reads them back with numpy. */
#include "apsp.h"
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static const char *write_file(const char *name, const char *text) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    return path;
}

/* Reads text as `name` for distances of `dtype` (auto: dtype_auto). */
static apsp_status read_for(const char *name, const char *text, int auto_dtype, apsp_dtype dtype,
                            apsp_graph **g, apsp_error *err) {
    apsp_read_options o;
    apsp_read_options_init(&o);
    o.dtype = dtype;
    o.dtype_auto = auto_dtype;
    memset(err, 0, sizeof *err);
    return apsp_read_graph(write_file(name, text), &o, g, err);
}

/* Refused as an input error whose one line names `line` and each NULL-terminated substring. */
static void refused(const char *name, const char *text, int auto_dtype, apsp_dtype dtype,
                    const char *line, ...) {
    apsp_graph *g;
    apsp_error err;
    apsp_status got = read_for(name, text, auto_dtype, dtype, &g, &err);
    CHECK(got == APSP_ERR_INPUT && g == NULL, "%s: status %s, expected an input error", name,
          apsp_status_name(got));
    if (got == APSP_OK) {
        apsp_graph_destroy(g);
        return;
    }
    CHECK(strstr(err.message, line) && !strchr(err.message, '\n'), "%s: no '%s' in: %s", name, line,
          err.message);
    va_list args;
    va_start(args, line);
    for (const char *s = va_arg(args, const char *); s; s = va_arg(args, const char *))
        CHECK(strstr(err.message, s) != NULL, "%s: the message lacks '%s': %s", name, s,
              err.message);
    va_end(args);
}

/* Accepted, with real weights exactly `weights` (count of them) in order. */
static void accepted_real(const char *name, const char *text, apsp_dtype dtype, int auto_dtype,
                          const double *weights, size_t count) {
    apsp_graph *g = NULL;
    apsp_error err;
    apsp_status got = read_for(name, text, auto_dtype, dtype, &g, &err);
    CHECK(got == APSP_OK, "%s: %s", name, err.message);
    if (got != APSP_OK)
        return;
    CHECK(g->real_weight && !g->weight && g->edges == count, "%s: %zu edges, real %d", name,
          g->edges, g->real_weight != NULL);
    for (size_t e = 0; g->real_weight && e < count && e < g->edges; e++)
        CHECK(g->real_weight[e] == weights[e], "%s: edge %zu weight %.17g, expected %.17g", name, e,
              g->real_weight[e], weights[e]);
    apsp_graph_destroy(g);
}

static void test_real_readers(void) {
    const double list[] = {1.5, 0.002, 7, -0.25};
    accepted_real("real.txt", "0 1 1.5\n1 2 2e-3\n2 0 7\n0 2 -.25\n", APSP_INT32, 1, list, 4);
    accepted_real("real64.txt", "0 1 1.5\n1 2 2e-3\n2 0 7\n0 2 -.25\n", APSP_FLOAT64, 0, list, 4);
    const double mtx[] = {2.5, 2.5, 3};
    accepted_real("real.mtx",
                  "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 2.5\n3 3 3.0\n",
                  APSP_INT32, 1, mtx, 3);
    /* Whole values stay integers, also in a real Matrix Market file. */
    apsp_graph *g;
    apsp_error err;
    CHECK(read_for("whole.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 4.0\n",
                   1, APSP_INT32, &g, &err) == APSP_OK &&
              g->weight && !g->real_weight && g->weight[0] == 4,
          "whole values stay integer: %s", err.message);
    apsp_graph_destroy(g);
    /* In pieces on several threads (over a megabyte of body), a fraction deep inside makes every
     * piece's weights real, in order. */
    size_t lines = 300000;
    char *big = malloc(lines * 16);
    size_t used = 0;
    for (size_t e = 0; e < lines; e++)
        used += (size_t)sprintf(big + used, e == lines - 7 ? "%zu %zu 0.5\n" : "%zu %zu %zu\n",
                                e % 1000, (e * 7 + 1) % 1000, e % 13);
    CHECK(read_for("big.txt", big, 1, APSP_INT32, &g, &err) == APSP_OK, "big: %s", err.message);
    int right = g && g->real_weight && g->edges == lines;
    for (size_t e = 0; right && e < lines; e++)
        right = g->source[e] == (int32_t)(e % 1000) &&
                g->real_weight[e] == (e == lines - 7 ? 0.5 : (double)(e % 13));
    CHECK(right, "big: the edges in order with real weights");
    apsp_graph_destroy(g);
    free(big);

    refused("inf.txt", "0 1 2\n1 0 inf\n", 1, APSP_INT32, "line 2", "inf is not finite", NULL);
    refused("ninf.txt", "0 1 -Infinity\n", 1, APSP_INT32, "line 1", "not finite", NULL);
    refused("nan.txt", "0 1 1\n\n1 0 NaN\n", 0, APSP_FLOAT64, "line 3", "NaN is not finite", NULL);
    refused("range.txt", "0 1 1e400\n", 1, APSP_INT32, "line 1", "range of a double", NULL);
    refused("f32.txt", "0 1 1e300\n", 0, APSP_FLOAT32, "line 1", "float32's range", NULL);
    refused("frac32.txt", "0 1 2\n1 0 1.5\n", 0, APSP_INT32, "line 2", "not a whole number",
            "int32", NULL);
    refused("frac64.txt", "0 1 2.25\n", 0, APSP_INT64, "line 1", "not a whole number", "int64",
            NULL);
    refused("inf.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 inf\n", 1,
            APSP_INT32, "line 3", "not finite", NULL);
    refused("dots.txt", "0 1 1.5.5\n", 1, APSP_INT32, "line 1", "'1.5.5'", NULL);
    refused("frac.gr", "p sp 2 1\na 1 2 1.5\n", 1, APSP_INT32, "line 2", "'1.5'", NULL);
    refused("int.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 0.5\n", 1,
            APSP_INT32, "line 3", "'0.5'", NULL);

    /* Width: with V = 3, int32's rule ends at 536870911, int64's at 2305843009213693951. */
    CHECK(read_for("wide.gr", "p sp 3 1\na 1 2 536870912\n", 1, APSP_INT32, &g, &err) == APSP_OK &&
              apsp_graph_dtype(g) == APSP_INT64,
          "auto: a weight past int32's rule is read, for int64: %s", err.message);
    apsp_graph_destroy(g);
    refused("wide32.gr", "p sp 3 1\na 1 2 536870912\n", 0, APSP_INT32, "line 2", "too large",
            "536870911", NULL);
    refused("wider.gr", "p sp 3 1\na 1 2 2305843009213693952\n", 1, APSP_INT32, "line 2",
            "too large", "int64", "2305843009213693951", NULL);
    refused("wider.txt", "0 1 5\n1 2 -2305843009213693952\n", 1, APSP_INT32, "line 2",
            "too negative", NULL);
    CHECK(read_for("widest.txt", "0 1 5\n1 2 -2305843009213693951\n", 1, APSP_INT32, &g, &err) ==
                  APSP_OK &&
              apsp_graph_dtype(g) == APSP_INT64,
          "auto: int64's least weight is read: %s", err.message);
    apsp_graph_destroy(g);
}

/* A text of edges 0 -> 1 -> 2 (V = 3) of weight w, as "%.17g". */
static const char *two_edges(double w) {
    static char text[96];
    snprintf(text, sizeof text, "0 1 %.17g\n1 2 %.17g\n", w, w);
    return text;
}

/* Real weights whose sums could overflow, or that the type would round to 0 or a subnormal: the
 * rule is that 2 |w| (V = 3: a path of two edges) stays below the type's largest number, checked
 * here on either side of it (0.1 % off, more than the rule's rounding room); a weight is quoted
 * as written. */
static void test_real_limits(void) {
    const double half64 = DBL_MAX / 2, half32 = FLT_MAX / 2;
    const double fits64[] = {half64 * 0.999, half64 * 0.999}, fits32[] = {1e38, 1e38};
    accepted_real("fits64.txt", two_edges(fits64[0]), APSP_INT32, 1, fits64, 2);
    refused("over64.txt", two_edges(half64 * 1.001), 1, APSP_INT32, "line 1", "too large",
            "with V = 3, float64 weights outside", "overflow to inf", NULL);
    refused("over64.txt", "0 1 1.5e308\n1 2 -1.5e308\n", 1, APSP_INT32, "line 1", "1.5e308", NULL);
    refused("over64.mtx",
            "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 -1.5e308\n", 1,
            APSP_INT32, "line 4", "weight -1.5e308 is too negative", "overflow to -inf", NULL);
    accepted_real("fits32.txt", "0 1 1e38\n1 2 1e38\n", APSP_FLOAT32, 0, fits32, 2);
    refused("over32.txt", two_edges(half32 * 1.001), 0, APSP_FLOAT32, "line 1", "too large",
            "float32 weights outside", NULL);
    refused("over32.txt", "0 1 1\n1 2 3e38\n", 0, APSP_FLOAT32, "line 2", "weight 3e38 is", NULL);
    const double one[] = {1.5e308};
    accepted_real("one.txt", "0 1 1.5e308\n", APSP_INT32, 1, one, 1); /* V = 2: no sums */
    refused("written.txt", "0 1 1e39\n", 0, APSP_FLOAT32, "line 1", "weight 1e39 is outside",
            "float32's range", NULL);
    /* Nonzero weights below the normal range: refused, not read as 0. */
    refused("tiny32.txt", "0 1 -2e-46\n1 0 1e-46\n", 0, APSP_FLOAT32, "line 1",
            "weight -2e-46 is not 0", "float32's smallest normal", NULL);
    refused("sub32.txt", "0 1 1e-40\n", 0, APSP_FLOAT32, "line 1", "1e-40", NULL);
    refused("tiny64.txt", "0 1 1\n1 0 1e-400\n", 1, APSP_INT32, "line 2", "weight 1e-400 is not 0",
            "float64's smallest normal", NULL);
    refused("sub64.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -1e-310\n", 1,
            APSP_INT32, "line 3", "-1e-310", NULL);
    refused("tinyint.txt", "0 1 1e-400\n", 0, APSP_INT64, "line 1",
            "weight 1e-400 is not a whole number", NULL);
    const double small[] = {1e-40, 0};
    accepted_real("small64.txt", "0 1 1e-40\n1 0 0.0e-999\n", APSP_FLOAT64, 0, small, 2);
    /* Unweighted: the weights are not read as lengths. */
    apsp_read_options o;
    apsp_read_options_init(&o);
    o.flags = APSP_GRAPH_UNWEIGHTED;
    apsp_graph *g = NULL;
    apsp_error err = {0};
    CHECK(apsp_read_graph(write_file("unw.txt", "0 1 1.5e308\n1 2 1e-400\n"), &o, &g, &err) ==
              APSP_OK,
          "unweighted: %s", err.message);
    apsp_graph_destroy(g);
}

/* ---- the conversion ------------------------------------------------------------------------ */

static double cell(const apsp_matrix *m, size_t i, size_t j) {
    const void *row = apsp_matrix_row_cells(m, i);
    switch (m->dtype) {
    case APSP_INT32:
        return ((const int32_t *)row)[j];
    case APSP_INT64:
        return (double)((const int64_t *)row)[j];
    case APSP_FLOAT32:
        return ((const float *)row)[j];
    case APSP_FLOAT64:
        return ((const double *)row)[j];
    }
    return NAN;
}

/* The graph converted to `dtype` must be refused (APSP_ERR_USAGE) naming `edge` and `what`. */
static void conversion_refused(const apsp_graph *g, apsp_dtype dtype, const char *edge,
                               const char *what) {
    apsp_matrix *m = (apsp_matrix *)g;
    apsp_error err = {0};
    apsp_status got = apsp_graph_to_matrix_typed(g, dtype, &m, &err);
    CHECK(got == APSP_ERR_USAGE && m == NULL && strstr(err.message, edge) &&
              strstr(err.message, what),
          "%s: expected a refusal naming '%s' and '%s', got %s: %s", apsp_dtype_name(dtype), edge,
          what, apsp_status_name(got), err.message);
    if (got == APSP_OK)
        apsp_matrix_destroy(m);
}

static void test_conversion(void) {
    const apsp_dtype types[] = {APSP_INT32, APSP_INT64, APSP_FLOAT32, APSP_FLOAT64};
    const double inf[] = {APSP_INF, (double)APSP_INF64, INFINITY, INFINITY};
    apsp_graph *g;
    apsp_error err;
    apsp_graph_create(4, 0, &g, &err);
    apsp_graph_append(g, 0, 1, 9, &err);
    apsp_graph_append(g, 0, 1, 4, &err);  /* the least of repeated edges */
    apsp_graph_append(g, 1, 1, -5, &err); /* a self-loop: ignored */
    apsp_graph_append(g, 2, 3, -2, &err);
    CHECK(apsp_graph_dtype(g) == APSP_INT32, "small integers: int32");
    for (int t = 0; t < 4; t++) {
        apsp_matrix *m = NULL;
        CHECK(apsp_graph_to_matrix_typed(g, types[t], &m, &err) == APSP_OK && m->dtype == types[t],
              "%s: %s", apsp_dtype_name(types[t]), err.message);
        if (!m)
            continue;
        CHECK(cell(m, 0, 1) == 4 && cell(m, 1, 1) == 0 && cell(m, 2, 3) == -2 &&
                  cell(m, 1, 0) == inf[t] && cell(m, 3, 3) == 0 &&
                  cell(m, 0, m->padded - 1) == inf[t],
              "%s: the cells", apsp_dtype_name(types[t]));
        apsp_matrix_destroy(m);
    }
    /* int32's rule with V = 4: |w| <= (2^30 - 2) / 3 = 357913940; int64's: (2^62 - 2) / 3. */
    g->weight[3] = 357913940;
    CHECK(apsp_graph_dtype(g) == APSP_INT32, "int32's largest weight: int32");
    g->weight[3] = -357913941;
    CHECK(apsp_graph_dtype(g) == APSP_INT64, "past int32's rule: int64");
    conversion_refused(g, APSP_INT32, "edge 3", "too negative");
    apsp_matrix *m = NULL;
    CHECK(apsp_graph_to_matrix_typed(g, APSP_INT64, &m, &err) == APSP_OK &&
              cell(m, 2, 3) == -357913941,
          "int64 takes it: %s", err.message);
    apsp_matrix_destroy(m);
    g->weight[3] = INT64_C(1537228672809129300);
    CHECK(apsp_graph_dtype(g) == APSP_INT64, "int64's largest weight: int64");
    g->weight[3] = INT64_C(1537228672809129301);
    CHECK(apsp_graph_dtype(g) == APSP_FLOAT64, "past int64's rule: float64");
    conversion_refused(g, APSP_INT64, "edge 3", "too large");
    CHECK(apsp_graph_to_matrix_typed(g, APSP_FLOAT64, &m, &err) == APSP_OK &&
              cell(m, 2, 3) == 1537228672809129301.0,
          "float64 takes any integer: %s", err.message);
    apsp_matrix_destroy(m);

    /* Real weights: floats take them; integer types take whole values only. */
    g->weight[3] = -2;
    CHECK(apsp_graph_append_real(g, 3, 0, 0.125, &err) == APSP_OK && g->real_weight && !g->weight,
          "append_real makes the weights real");
    CHECK(g->real_weight[1] == 4 && g->real_weight[4] == 0.125, "the integers became reals");
    CHECK(apsp_graph_dtype(g) == APSP_FLOAT64, "real weights: float64");
    for (int t = 2; t < 4; t++) {
        CHECK(apsp_graph_to_matrix_typed(g, types[t], &m, &err) == APSP_OK &&
                  cell(m, 3, 0) == 0.125 && cell(m, 0, 1) == 4,
              "%s takes real weights: %s", apsp_dtype_name(types[t]), err.message);
        apsp_matrix_destroy(m);
    }
    conversion_refused(g, APSP_INT32, "edge 4", "not a whole number");
    conversion_refused(g, APSP_INT64, "edge 4", "not a whole number");
    g->real_weight[4] = 3;
    CHECK(apsp_graph_to_matrix_typed(g, APSP_INT64, &m, &err) == APSP_OK && cell(m, 3, 0) == 3,
          "whole real values into int64: %s", err.message);
    apsp_matrix_destroy(m);
    g->real_weight[4] = 1e300;
    conversion_refused(g, APSP_FLOAT32, "edge 4", "float32's range");
    g->real_weight[4] = NAN;
    conversion_refused(g, APSP_FLOAT64, "edge 4", "not finite");
    g->real_weight[4] = -INFINITY;
    conversion_refused(g, APSP_FLOAT32, "edge 4", "not finite");
    /* V = 4: a path of three edges; 3 |w| must stay below the type's largest number (FLT_MAX
     * 3.4028e38, DBL_MAX 1.7977e308), and |w| at or above its least normal one. */
    const struct {
        double w;
        apsp_dtype dtype;
        const char *refusal; /* NULL: taken */
    } limits[] = {
        {1.1e38, APSP_FLOAT32, NULL},
        {1.2e38, APSP_FLOAT32, "too large"},
        {-1.2e38, APSP_FLOAT32, "too negative"},
        {1.2e38, APSP_FLOAT64, NULL},
        {5.9e307, APSP_FLOAT64, NULL},
        {6e307, APSP_FLOAT64, "overflow to inf"},
        {1e-40, APSP_FLOAT32, "smallest normal"},
        {1e-40, APSP_FLOAT64, NULL},
        {1.2e-38, APSP_FLOAT32, NULL},
        {-1e-310, APSP_FLOAT64, "smallest normal"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        g->real_weight[4] = limits[i].w;
        if (limits[i].refusal) {
            conversion_refused(g, limits[i].dtype, "edge 4", limits[i].refusal);
            continue;
        }
        m = NULL;
        CHECK(apsp_graph_to_matrix_typed(g, limits[i].dtype, &m, &err) == APSP_OK &&
                  cell(m, 3, 0) ==
                      (limits[i].dtype == APSP_FLOAT32 ? (float)limits[i].w : limits[i].w),
              "%s takes %g: %s", apsp_dtype_name(limits[i].dtype), limits[i].w, err.message);
        apsp_matrix_destroy(m);
    }
    /* The transforms keep working: undirected copies real weights, unweighted makes integers. */
    g->real_weight[4] = 0.5;
    CHECK(apsp_graph_transform(g, APSP_GRAPH_UNDIRECTED, &err) == APSP_OK && g->edges == 9 &&
              g->real_weight[8] == 0.5 && g->source[8] == 0 && g->target[8] == 3,
          "undirected real: %s", err.message);
    CHECK(apsp_graph_transform(g, APSP_GRAPH_UNWEIGHTED, &err) == APSP_OK && g->weight &&
              !g->real_weight && g->weight[8] == 1 && apsp_graph_dtype(g) == APSP_INT32,
          "unweighted makes integer weights: %s", err.message);
    apsp_graph_destroy(g);
}

/* ---- the writers ------------------------------------------------------------------------- */

/* A 3 x 3 matrix of the type: 0 on the diagonal, (0,1) = a, (1,2) = b, (2,0) unreachable,
 * the rest c. */
static apsp_matrix *small_matrix(apsp_dtype dtype, double a, double b, double c) {
    apsp_matrix *m;
    apsp_error err;
    if (apsp_matrix_create_typed(3, dtype, &m, &err) != APSP_OK)
        return NULL;
    const double v[3][3] = {{0, a, c}, {c, 0, b}, {-1, c, 0}};
    for (size_t i = 0; i < 3; i++) {
        void *row = apsp_matrix_row_cells(m, i);
        for (size_t j = 0; j < 3; j++) {
            if (v[i][j] == -1)
                continue; /* unreachable, as made */
            if (dtype == APSP_INT32)
                ((int32_t *)row)[j] = (int32_t)v[i][j];
            else if (dtype == APSP_INT64)
                ((int64_t *)row)[j] = (int64_t)v[i][j];
            else if (dtype == APSP_FLOAT32)
                ((float *)row)[j] = (float)v[i][j];
            else
                ((double *)row)[j] = v[i][j];
        }
    }
    return m;
}

static size_t read_back(const char *path, unsigned char *buf, size_t size) {
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, size, f) : 0;
    if (f)
        fclose(f);
    return n;
}

/* The values each type's test matrix holds: a = 7, b = -3, c: 2^40 + 1 for int64 (past int32),
 * 0.1 for the floating-point types (the shortest text that reads back). */
static apsp_matrix *test_matrix(apsp_dtype dtype) {
    double c = dtype == APSP_INT64 ? 1099511627777.0 : dtype == APSP_INT32 ? 12 : 0.1;
    return small_matrix(dtype, 7, -3, c);
}

static void test_npy_and_text(void) {
    static const char *const descr[] = {"'<i4'", "'<i8'", "'<f4'", "'<f8'"};
    static const char *const text[] = {
        "0 7 12\n12 0 -3\ninf 12 0\n",
        "0 7 1099511627777\n1099511627777 0 -3\ninf 1099511627777 0\n",
        "0 7 0.100000001\n0.100000001 0 -3\ninf 0.100000001 0\n",
        "0 7 0.10000000000000001\n0.10000000000000001 0 -3\ninf 0.10000000000000001 0\n",
    };
    for (int t = 0; t < 4; t++) {
        apsp_dtype dtype = (apsp_dtype)t;
        apsp_matrix *m = test_matrix(dtype);
        char path[512];
        apsp_error err;
        snprintf(path, sizeof path, "%s/%s.npy", dir, apsp_dtype_name(dtype));
        CHECK(apsp_write_matrix(path, APSP_FORMAT_AUTO, m, &err) == APSP_OK, "%s", err.message);
        unsigned char buf[512];
        size_t n = read_back(path, buf, sizeof buf), size = apsp_dtype_size(dtype);
        CHECK(n == 128 + 9 * size && memcmp(buf, "\x93NUMPY\x01\x00\x76\x00", 10) == 0 &&
                  buf[127] == '\n',
              "%s: %zu bytes, a 128-byte header", path, n);
        buf[127] = '\0';
        CHECK(strstr((char *)buf + 10, descr[t]) && strstr((char *)buf + 10, "(3, 3)"),
              "%s: header %s", path, (char *)buf + 10);
        /* Cell (1, 2) = -3, little-endian, at its place. */
        unsigned char minus3[8];
        double d = -3;
        float f = -3;
        int64_t i64 = -3;
        int32_t i32 = -3;
        memcpy(minus3,
               t == 0   ? (void *)&i32
               : t == 1 ? (void *)&i64
               : t == 2 ? (void *)&f
                        : (void *)&d,
               size);
        CHECK(n == 128 + 9 * size && memcmp(buf + 128 + 5 * size, minus3, size) == 0,
              "%s: cell (1, 2)", path);
        snprintf(path, sizeof path, "%s/%s.txt", dir, apsp_dtype_name(dtype));
        CHECK(apsp_write_matrix(path, APSP_FORMAT_AUTO, m, &err) == APSP_OK, "%s", err.message);
        char got[256] = {0};
        read_back(path, (unsigned char *)got, sizeof got - 1);
        CHECK(strcmp(got, text[t]) == 0, "%s: text\n%s\nexpected\n%s", path, got, text[t]);
        apsp_matrix_destroy(m);
    }
}

static void test_hw3_narrowing(void) {
    char path[512];
    apsp_error err;
    snprintf(path, sizeof path, "%s/out.bin", dir);
    /* An int64 matrix whose distances fit: the bytes of the int32 one, APSP_INF for no path. */
    apsp_matrix *wide = small_matrix(APSP_INT64, 7, -(APSP_INF - 1), APSP_INF - 1);
    apsp_matrix *narrow = small_matrix(APSP_INT32, 7, -(APSP_INF - 1), APSP_INF - 1);
    unsigned char a[64], b[64];
    CHECK(apsp_write_hw3(path, narrow, &err) == APSP_OK, "%s", err.message);
    size_t na = read_back(path, a, sizeof a);
    CHECK(apsp_write_hw3(path, wide, &err) == APSP_OK, "int64 that fits: %s", err.message);
    size_t nb = read_back(path, b, sizeof b);
    CHECK(na == 36 && nb == 36 && memcmp(a, b, 36) == 0, "int64 to hw3: the int32 bytes");
    /* One distance past int32's range: refused naming it, the file as it was. */
    ((int64_t *)apsp_matrix_row_cells(wide, 2))[1] = APSP_INF;
    apsp_status got = apsp_write_hw3(path, wide, &err);
    CHECK(got == APSP_ERR_OUTPUT && strstr(err.message, "from 2 to 1 is 1073741823"),
          "a distance past int32: %s", err.message);
    CHECK(read_back(path, b, sizeof b) == 36 && memcmp(a, b, 36) == 0, "the old file stays");
    ((int64_t *)apsp_matrix_row_cells(wide, 2))[1] = -APSP_INF;
    CHECK(apsp_write_hw3(path, wide, &err) == APSP_ERR_OUTPUT && strstr(err.message, "-1073741823"),
          "a distance past int32's negative range: %s", err.message);
    apsp_matrix *real = small_matrix(APSP_FLOAT64, 1, 2, 3);
    got = apsp_write_matrix(path, APSP_FORMAT_HW3, real, &err);
    CHECK(got == APSP_ERR_USAGE && strstr(err.message, "float64"), "floats to hw3: %s",
          err.message);
    CHECK(read_back(path, b, sizeof b) == 36 && memcmp(a, b, 36) == 0, "the old file stays");
    apsp_matrix_destroy(wide);
    apsp_matrix_destroy(narrow);
    apsp_matrix_destroy(real);
}

/* --write DIR: the test matrices for test_dtypes.py. */
static int write_for_numpy(const char *out) {
    for (int t = 0; t < 4; t++) {
        apsp_matrix *m = test_matrix((apsp_dtype)t);
        char path[512];
        apsp_error err;
        int ok = 1;
        const char *ext[] = {"npy", "txt"};
        for (int e = 0; e < 2 && ok; e++) {
            snprintf(path, sizeof path, "%s/%s.%s", out, apsp_dtype_name((apsp_dtype)t), ext[e]);
            ok = apsp_write_matrix(path, APSP_FORMAT_AUTO, m, &err) == APSP_OK;
        }
        apsp_matrix_destroy(m);
        if (!ok) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_for_numpy(argv[2]);
    snprintf(dir, sizeof dir, "/tmp/apsp-test-dtypes-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_real_readers();
    test_real_limits();
    test_conversion();
    test_npy_and_text();
    test_hw3_narrowing();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
