/* The text readers (DIMACS .gr, Matrix Market .mtx, edge lists), the edge-list API and the npy
 * and text writers, against hostile inputs: every refusal must be APSP_ERR_INPUT with one line
 * that names the file and the line ("line N"), and accepted inputs must give the graph the test
 * expects, edge by edge. */
#include "apsp.h"
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static const char *write_text(const char *name, const char *text, size_t len) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(text, 1, len, f) != len) || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    return path;
}

static apsp_status read_as(const char *path, apsp_format format, size_t vertices, unsigned flags,
                           apsp_graph **g, apsp_error *err) {
    apsp_read_options o;
    apsp_read_options_init(&o);
    o.format = format;
    o.vertices = vertices;
    o.flags = flags;
    memset(err, 0, sizeof *err);
    *g = (apsp_graph *)err; /* the reader must reset it */
    return apsp_read_graph(path, &o, g, err);
}

static void refused_path(apsp_format format, const char *name, const char *path, va_list args);

/* The text in a file named `name` must be refused with each NULL-terminated substring. */
static void refused(apsp_format format, const char *name, const char *text, ...) {
    va_list args;
    va_start(args, text);
    refused_path(format, name, write_text(name, text, strlen(text)), args);
    va_end(args);
}

/* The same for `len` bytes of text, which may hold NUL bytes. */
static void refused_bytes(apsp_format format, const char *name, const char *text, size_t len, ...) {
    va_list args;
    va_start(args, len);
    refused_path(format, name, write_text(name, text, len), args);
    va_end(args);
}

static void refused_path(apsp_format format, const char *name, const char *path, va_list args) {
    apsp_graph *g;
    apsp_error err;
    apsp_status got = read_as(path, format, 0, 0, &g, &err);
    CHECK(got == APSP_ERR_INPUT, "%s: status %s, expected an input error (message: %s)", name,
          apsp_status_name(got), got == APSP_OK ? "none" : err.message);
    CHECK(g == NULL, "%s: a refused read must leave *out NULL", name);
    if (got == APSP_OK) {
        apsp_graph_destroy(g);
        return;
    }
    CHECK(err.status == got && err.message[0] && !strchr(err.message, '\n'),
          "%s: the message must be one line: '%s'", name, err.message);
    CHECK(strstr(err.message, path) != NULL, "%s: the message does not name the file: %s", name,
          err.message);
    CHECK(strstr(err.message, ": line ") != NULL, "%s: the message names no line: %s", name,
          err.message);
    for (const char *s = va_arg(args, const char *); s; s = va_arg(args, const char *))
        CHECK(strstr(err.message, s) != NULL, "%s: the message lacks '%s': %s", name, s,
              err.message);
}

/* The graph must be V vertices and exactly the edges "s t w;s t w;..." in order. */
static void accepted_with(apsp_format format, const char *name, const char *text, size_t len,
                          size_t vertices_option, unsigned flags, size_t v, const char *edges) {
    const char *path = write_text(name, text, len);
    apsp_graph *g;
    apsp_error err;
    apsp_status got = read_as(path, format, vertices_option, flags, &g, &err);
    CHECK(got == APSP_OK && g, "%s: refused: %s", name, err.message);
    if (got != APSP_OK || !g)
        return;
    CHECK(g->vertices == v, "%s: V = %zu, expected %zu", name, g->vertices, v);
    char have[1024] = "";
    for (size_t e = 0; e < g->edges; e++) {
        size_t n = strlen(have);
        snprintf(have + n, sizeof have - n, "%s%d %d %lld", e ? ";" : "", g->source[e],
                 g->target[e], (long long)g->weight[e]);
    }
    CHECK(strcmp(have, edges) == 0, "%s: edges '%s', expected '%s'", name, have, edges);
    apsp_graph_destroy(g);
}

static void accepted(apsp_format format, const char *name, const char *text, size_t v,
                     const char *edges) {
    accepted_with(format, name, text, strlen(text), 0, 0, v, edges);
}

static void test_dimacs(void) {
    const apsp_format F = APSP_FORMAT_DIMACS;
    accepted(F, "ok.gr", "c road\np sp 3 2\nc mid\na 1 2 5\na 3 1 0\n", 3, "0 1 5;2 0 0");
    accepted(F, "crlf.gr", "p sp 2 1\r\na 1 2 7\r\n", 2, "0 1 7");
    accepted(F, "no-final-newline.gr", "p sp 2 1\na 2 1 4", 2, "1 0 4");
    accepted(F, "blank-lines.gr", "\n\np sp 2 1\n\n  \na 1 1 3\n\n", 2, "0 0 3");
    accepted(F, "bare-c.gr", "c\np sp 1 0\n", 1, "");
    refused(F, "empty.gr", "", "line 1", "no problem line", NULL);
    refused(F, "only-comments.gr", "c x\nc y\n", "no problem line", NULL);
    refused(F, "arc-first.gr", "a 1 2 3\np sp 2 1\n", "line 1", "before the problem line", NULL);
    refused(F, "two-problems.gr", "p sp 2 0\np sp 2 0\n", "line 2", "second problem line", NULL);
    refused(F, "max-flow.gr", "p max 2 0\n", "line 1", "'max'", NULL);
    refused(F, "v0.gr", "p sp 0 0\n", "line 1", "at least one vertex", NULL);
    refused(F, "v-huge.gr", "p sp 99999999999999999999 0\n", "line 1", "too large", NULL);
    refused(F, "v-negative.gr", "p sp -3 0\n", "line 1", "vertex count", NULL);
    refused(F, "few-arcs.gr", "p sp 2 2\na 1 2 3\n", "line 3", "after 1 arcs", "E = 2", NULL);
    refused(F, "many-arcs.gr", "p sp 2 1\na 1 2 3\na 2 1 3\n", "line 3", "more arcs", NULL);
    refused(F, "src-0.gr", "p sp 2 1\na 0 2 3\n", "line 2", "source vertex 0 is out of range",
            NULL);
    refused(F, "dst-big.gr", "p sp 2 1\na 1 3 3\n", "line 2", "target vertex 3", NULL);
    refused(F, "negative.gr", "p sp 3 1\na 1 2 -600000000\n", "line 2", "too negative", NULL);
    refused(F, "too-wide.gr", "p sp 3 1\na 1 2 600000000\n", "line 2", "too large", NULL);
    refused(F, "overflow.gr", "p sp 2 1\na 1 2 99999999999999999999\n", "line 2", "too large",
            NULL);
    refused(F, "real.gr", "p sp 2 1\na 1 2 2.5\n", "line 2", "'2.5'", NULL);
    refused(F, "extra-field.gr", "p sp 2 1\na 1 2 3 4\n", "line 2", "'4'", NULL);
    refused(F, "missing-weight.gr", "p sp 2 1\na 1 2\n", "line 2", "end of the line", NULL);
    refused(F, "garbage.gr", "p sp 2 1\nx 1 2 3\n", "line 2", "'x'", NULL);
    refused(F, "garbage-byte.gr", "p sp 2 1\na 1 2 3\x01\n", "line 2", "\\x01", NULL);
    refused(F, "lone-cr.gr", "p sp 2 1\ra 1 2 3\n", "line 1", NULL);
    refused(F, "arc-no-space.gr", "p sp 2 1\na1 2 3\n", "line 2", NULL);
}

static void test_mtx(void) {
    const apsp_format F = APSP_FORMAT_MTX;
    const char *banner = "%%MatrixMarket matrix coordinate ";
    char text[512];
    accepted(F, "general.mtx",
             "%%MatrixMarket matrix coordinate integer general\n% made by hand\n3 3 2\n1 2 5\n3 "
             "1 7\n",
             3, "0 1 5;2 0 7");
    accepted(F, "symmetric.mtx",
             "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 2.0\n3 3 1e0\n3 2 "
             "3.000e+00\n",
             3, "1 0 2;0 1 2;2 2 1;2 1 3;1 2 3");
    accepted(F, "pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", 2,
             "0 1 1");
    accepted(F, "case.mtx", "%%MatrixMarket MATRIX Coordinate Double General\r\n2 2 1\r\n2 1 4", 2,
             "1 0 4");
    snprintf(text, sizeof text, "%sreal general\n2 2 1\n1 2 1.5\n", banner);
    refused(F, "fraction.mtx", text, "line 3", "1.5 is not a whole number", NULL);
    snprintf(text, sizeof text, "%sreal general\n2 2 1\n1 2 1e-3\n", banner);
    refused(F, "small.mtx", text, "line 3", "not a whole number", NULL);
    snprintf(text, sizeof text, "%sinteger general\n2 2 1\n1 2 2.0\n", banner);
    refused(F, "int-real.mtx", text, "line 3", "'2.0'", NULL);
    refused(F, "array.mtx", "%%MatrixMarket matrix array real general\n2 2\n0\n1\n2\n3\n", "line 1",
            "array", NULL);
    snprintf(text, sizeof text, "%scomplex general\n", banner);
    refused(F, "complex.mtx", text, "line 1", "complex", NULL);
    snprintf(text, sizeof text, "%sreal hermitian\n", banner);
    refused(F, "hermitian.mtx", text, "line 1", "hermitian", NULL);
    snprintf(text, sizeof text, "%sreal skew-symmetric\n", banner);
    refused(F, "skew.mtx", text, "line 1", "skew-symmetric", NULL);
    refused(F, "no-banner.mtx", "2 2 1\n1 2 3\n", "line 1", "banner", NULL);
    refused(F, "empty.mtx", "", "line 1", "banner", NULL);
    refused(F, "vector.mtx", "%%MatrixMarket vector coordinate real general\n", "line 1",
            "'vector'", NULL);
    snprintf(text, sizeof text, "%sreal general\n", banner);
    refused(F, "no-size.mtx", text, "no size line", NULL);
    snprintf(text, sizeof text, "%sreal general\n2 3 0\n", banner);
    refused(F, "not-square.mtx", text, "line 2", "2 x 3", NULL);
    snprintf(text, sizeof text, "%sreal general\n0 0 0\n", banner);
    refused(F, "zero.mtx", text, "line 2", "at least one vertex", NULL);
    snprintf(text, sizeof text, "%sreal general\n2 2 2\n1 2 3\n", banner);
    refused(F, "few.mtx", text, "line 4", "after 1 entries", "NNZ = 2", NULL);
    snprintf(text, sizeof text, "%sreal general\n2 2 1\n1 2 3\n2 1 3\n", banner);
    refused(F, "many.mtx", text, "line 4", "more entries", NULL);
    snprintf(text, sizeof text, "%sreal general\n2 2 1\n0 2 3\n", banner);
    refused(F, "row-0.mtx", text, "line 3", "row 0 is out of range [1, 2]", NULL);
    snprintf(text, sizeof text, "%sreal general\n2 2 1\n1 3 3\n", banner);
    refused(F, "col-3.mtx", text, "line 3", "column 3", NULL);
    snprintf(text, sizeof text, "%sreal symmetric\n2 2 1\n1 2 3\n", banner);
    refused(F, "upper.mtx", text, "line 3", "above the diagonal", NULL);
    snprintf(text, sizeof text, "%sinteger general\n2 2 1\n1 2 -1073741823\n", banner);
    refused(F, "negative.mtx", text, "line 3", "weight -1073741823 is too negative", NULL);
    snprintf(text, sizeof text, "%sreal general\n2 2 1\n1 2 1e30\n", banner);
    refused(F, "huge.mtx", text, "line 3", "too large", NULL);
    snprintf(text, sizeof text, "%sinteger general\n3 3 1\n1 2 99999999999999999999\n", banner);
    refused(F, "overflow.mtx", text, "line 3", "too large", NULL);
    snprintf(text, sizeof text, "%spattern general\n2 2 1\n1 2 3\n", banner);
    refused(F, "pattern-value.mtx", text, "line 3", "'3'", NULL);
    snprintf(text, sizeof text, "%sinteger general\n2 2 1\n1 2\n", banner);
    refused(F, "no-value.mtx", text, "line 3", "end of the line", NULL);
    snprintf(text, sizeof text, "%sinteger general\n2 2 1\n1 2 3 4\n", banner);
    refused(F, "extra.mtx", text, "line 3", "'4'", NULL);
    snprintf(text, sizeof text, "%sinteger general\n2 2 1\n1 x 3\n", banner);
    refused(F, "garbage.mtx", text, "line 3", "'x'", NULL);
}

static void test_edgelist(void) {
    const apsp_format F = APSP_FORMAT_EDGELIST;
    accepted(F, "plain.txt", "# SNAP\n% also\n0 1\n1\t2\n\n4 0\n", 5, "0 1 1;1 2 1;4 0 1");
    accepted(F, "weighted.txt", "0 1 5\n1 0 2.0\n", 2, "0 1 5;1 0 2");
    accepted(F, "crlf.txt", "0 1 3\r\n1 2 4\r\n", 3, "0 1 3;1 2 4");
    accepted(F, "no-final-newline.txt", "0 1 3", 2, "0 1 3");
    accepted(F, "indented.txt", "  0   1  \n", 2, "0 1 1");
    accepted_with(F, "vertices.txt", "0 1\n", 4, 5, 0, 5, "0 1 1");
    accepted_with(F, "empty-with-v.txt", "", 0, 3, 0, 3, "");
    accepted_with(F, "undirected.txt", "0 1 4\n2 2 1\n", 12, 0, APSP_GRAPH_UNDIRECTED, 3,
                  "0 1 4;2 2 1;1 0 4");
    accepted_with(F, "unweighted.txt", "0 1 -4\n1 0 999999999999\n", 22, 0, APSP_GRAPH_UNWEIGHTED,
                  2, "0 1 1;1 0 1");
    refused(F, "empty.txt", "", "line 1", "vertex count is unknown", NULL);
    refused(F, "comments.txt", "# nothing\n", "vertex count is unknown", NULL);
    refused(F, "mixed.txt", "0 1 5\n1 2\n", "line 2", "line 1 has one", NULL);
    refused(F, "mixed2.txt", "0 1\n1 2 5\n", "line 2", "line 1 has none", NULL);
    refused(F, "one-field.txt", "0\n", "line 1", "target vertex", NULL);
    refused(F, "negative-id.txt", "-1 2\n", "line 1", "source vertex", NULL);
    refused(F, "huge-id.txt", "0 99999999999999999999\n", "line 1", "too large", NULL);
    refused(F, "big-id.txt", "0 2147483647\n", "line 1", "too large", NULL);
    refused(F, "real-id.txt", "0 1.0\n", "line 1", "'1.0'", NULL);
    refused(F, "fraction.txt", "0 1 0.5\n", "line 1", "not a whole number", NULL);
    refused(F, "negative.txt", "0 1 2\n1 0 -1073741823\n", "line 2", "too negative", NULL);
    refused(F, "overflow.txt", "0 1 99999999999999999999\n", "line 1", "too large", NULL);
    /* V = 3 is known only at the end; the largest weight is refused at its own line. */
    refused(F, "wide.txt", "0 1 5\n1 2 600000000\n0 2 1\n", "line 2", "too large", "V = 3", NULL);
    refused(F, "four.txt", "0 1 2 3\n", "line 1", "'3'", NULL);
    refused(F, "csv.txt", "0,1\n", "line 1", NULL);
    refused_bytes(F, "nul.txt", "0 1\n\0 2\n", 8, "line 2", "\\x00", NULL);
    refused_bytes(F, "nul-weight.txt", "0 1 3\0\n", 7, "line 1", NULL);
    refused(F, "trailing-comment.txt", "0 1 # x\n", "line 1", NULL);
    /* With --vertices, ids at or above it are refused at their line. */
    const char *path = write_text("above-v.txt", "0 1\n0 5\n", 8);
    apsp_graph *g;
    apsp_error err;
    apsp_status got = read_as(path, F, 5, 0, &g, &err);
    CHECK(got == APSP_ERR_INPUT && strstr(err.message, "line 2") &&
              strstr(err.message, "out of range [0, 5)"),
          "an id at --vertices: %s", err.message);
}

/* Bodies long enough to be read in pieces on several threads (over a megabyte each): the graph
 * must be every edge in file order, and a problem deep inside must still be refused with its
 * own line, as a read in order finds it. */
enum { LONG_LINES = 300000 };

static char *long_text(const char *head, const char *line_format, int base, size_t *len) {
    size_t cap = (size_t)LONG_LINES * 40 + 256;
    char *text = malloc(cap);
    if (!text)
        exit(1);
    size_t n = (size_t)snprintf(text, cap, "%s", head);
    for (int i = 0; i < LONG_LINES; i++)
        n += (size_t)snprintf(text + n, cap - n, line_format, i % 1000 + base,
                              (i * 7 + 1) % 1000 + base, i % 13);
    *len = n;
    return text;
}

static void check_long(apsp_format format, const char *name, const char *head,
                       const char *line_format, int base, int head_lines) {
    size_t len;
    char *text = long_text(head, line_format, base, &len);
    const char *path = write_text(name, text, len);
    apsp_graph *g;
    apsp_error err;
    apsp_status got = read_as(path, format, 0, 0, &g, &err);
    CHECK(got == APSP_OK && g && g->edges == LONG_LINES && g->vertices == 1000, "%s: %s, %zu edges",
          name, err.message, got == APSP_OK ? g->edges : 0);
    size_t bad = 0;
    for (size_t e = 0; got == APSP_OK && e < g->edges; e++)
        bad += g->source[e] != (int32_t)(e % 1000) ||
               g->target[e] != (int32_t)((e * 7 + 1) % 1000) || g->weight[e] != (int64_t)(e % 13);
    CHECK(bad == 0, "%s: %zu edges out of place", name, bad);
    if (got == APSP_OK)
        apsp_graph_destroy(g);
    /* A letter in the weight of the 250 000th line of the body. */
    char *line = text + len;
    for (int lines = LONG_LINES - 250000 + 1; lines > 0; line--)
        lines -= line[-1] == '\n';
    char *end_of_line = strchr(line, '\n');
    end_of_line[-1] = 'x';
    path = write_text(name, text, len);
    got = read_as(path, format, 0, 0, &g, &err);
    char where[32];
    snprintf(where, sizeof where, "line %d:", head_lines + 250000);
    CHECK(got == APSP_ERR_INPUT && strstr(err.message, where),
          "%s: a bad weight deep inside: %s (expected %s)", name, err.message, where);
    free(text);
}

static void test_long(void) {
    char head[128];
    check_long(APSP_FORMAT_EDGELIST, "long.txt", "# long\n", "%d %d %d\n", 0, 1);
    check_long(APSP_FORMAT_EDGELIST, "long-crlf.txt", "# long\r\n", "%d\t%d %d\r\n", 0, 1);
    snprintf(head, sizeof head, "p sp 1000 %d\n", LONG_LINES);
    check_long(APSP_FORMAT_DIMACS, "long.gr", head, "a %d %d %d\n", 1, 1);
    snprintf(head, sizeof head,
             "%%%%MatrixMarket matrix coordinate integer general\n1000 1000 %d\n", LONG_LINES);
    check_long(APSP_FORMAT_MTX, "long.mtx", head, "%d %d %d\n", 1, 2);
    /* A symmetric matrix: two edges for each entry off the diagonal, in the entries' order. */
    snprintf(head, sizeof head, "%%%%MatrixMarket matrix coordinate integer symmetric\n5 5 %d\n",
             LONG_LINES);
    size_t cap = (size_t)LONG_LINES * 16 + 128, n;
    char *sym = malloc(cap);
    if (!sym)
        exit(1);
    n = (size_t)snprintf(sym, cap, "%s", head);
    for (int i = 0; i < LONG_LINES; i++)
        n += (size_t)snprintf(sym + n, cap - n, "%d %d %d\n", i % 5 + 1, i % 5 == 0 ? 1 : i % 5,
                              i % 11);
    apsp_graph *sg;
    apsp_error serr;
    apsp_status sgot =
        read_as(write_text("long-sym.mtx", sym, n), APSP_FORMAT_MTX, 0, 0, &sg, &serr);
    size_t want = 0, misplaced = 0;
    for (int i = 0; sgot == APSP_OK && i < LONG_LINES; i++) {
        int32_t r = i % 5, c = i % 5 == 0 ? 0 : i % 5 - 1;
        misplaced += want >= sg->edges || sg->source[want] != r || sg->target[want] != c ||
                     sg->weight[want] != i % 11;
        want++;
        if (r != c)
            misplaced += want >= sg->edges || sg->source[want] != c || sg->target[want] != r,
                want++;
    }
    CHECK(sgot == APSP_OK && sg->edges == want && misplaced == 0,
          "long symmetric mtx: %s, %zu edges, expected %zu, %zu misplaced", serr.message,
          sgot == APSP_OK ? sg->edges : 0, want, misplaced);
    if (sgot == APSP_OK)
        apsp_graph_destroy(sg);
    free(sym);
    /* One arc more than E, far into the body: refused at that arc's line. */
    snprintf(head, sizeof head, "p sp 1000 %d\n", LONG_LINES - 1);
    size_t len;
    char *text = long_text(head, "a %d %d %d\n", 1, &len);
    apsp_graph *g;
    apsp_error err;
    apsp_status got =
        read_as(write_text("extra.gr", text, len), APSP_FORMAT_DIMACS, 0, 0, &g, &err);
    char where[32];
    snprintf(where, sizeof where, "line %d:", LONG_LINES + 1);
    CHECK(got == APSP_ERR_INPUT && strstr(err.message, where) && strstr(err.message, "more arcs"),
          "one arc more than E: %s", err.message);
    free(text);
}

static void test_graph_api(void) {
    apsp_graph *g;
    apsp_error err;
    CHECK(apsp_graph_create(3, 0, &g, &err) == APSP_OK, "create: %s", err.message);
    for (int i = 0; i < 3000; i++) /* growing past the first capacity */
        CHECK(apsp_graph_append(g, i % 3, (i + 1) % 3, 10 + i % 5, &err) == APSP_OK, "append");
    CHECK(apsp_graph_append(g, 1, 1, 0, &err) == APSP_OK, "append a self-loop");
    apsp_matrix *m;
    CHECK(apsp_graph_to_matrix(g, &m, &err) == APSP_OK, "to_matrix: %s", err.message);
    if (m) {
        CHECK(apsp_matrix_row(m, 0)[1] == 10 && apsp_matrix_row(m, 1)[2] == 10 &&
                  apsp_matrix_row(m, 2)[0] == 10,
              "duplicates keep the least weight");
        CHECK(apsp_matrix_row(m, 1)[1] == 0 && apsp_matrix_row(m, 1)[0] == APSP_INF,
              "the diagonal stays 0, no edge is APSP_INF");
        apsp_matrix_destroy(m);
    }
    CHECK(apsp_graph_transform(g, APSP_GRAPH_UNDIRECTED | APSP_GRAPH_UNWEIGHTED, &err) == APSP_OK,
          "transform");
    CHECK(g->edges == 6001, "undirected: %zu edges, expected 6001 (the self-loop once)", g->edges);
    CHECK(apsp_graph_to_matrix(g, &m, &err) == APSP_OK && apsp_matrix_row(m, 1)[0] == 1,
          "undirected and unweighted: 1 -> 0 of weight 1");
    apsp_matrix_destroy(m);
    CHECK(apsp_graph_transform(g, 4, &err) == APSP_ERR_USAGE, "unknown flags are refused");
    g->source[5] = 3;
    CHECK(apsp_graph_to_matrix(g, &m, &err) == APSP_ERR_USAGE && m == NULL &&
              strstr(err.message, "edge 5") && strstr(err.message, "source vertex 3"),
          "an endpoint out of range: %s", err.message);
    g->source[5] = 0;
    g->weight[7] = -((APSP_INF - 1) / 2 + 1);
    CHECK(apsp_graph_to_matrix(g, &m, &err) == APSP_ERR_USAGE &&
              strstr(err.message, "edge 7: weight -536870912 is too negative"),
          "a weight below the rule: %s", err.message);
    g->weight[7] = (APSP_INF - 1) / 2 + 1;
    CHECK(apsp_graph_to_matrix(g, &m, &err) == APSP_ERR_USAGE && strstr(err.message, "too large"),
          "a weight above the rule: %s", err.message);
    apsp_graph_destroy(g);
    apsp_graph_destroy(NULL);
    CHECK(apsp_graph_create(0, 0, &g, &err) == APSP_OK &&
              apsp_graph_to_matrix(g, &m, &err) != APSP_OK && m == NULL,
          "V = 0 has no matrix");
    apsp_graph_destroy(g);
}

static void test_format_names(void) {
    static const struct {
        const char *path;
        int output;
        apsp_format format;
    } cases[] = {
        {"a.gr", 0, APSP_FORMAT_DIMACS},
        {"a.mtx", 0, APSP_FORMAT_MTX},
        {"a.MTX", 0, APSP_FORMAT_MTX},
        {"x/a.txt", 0, APSP_FORMAT_EDGELIST},
        {"a.edges", 0, APSP_FORMAT_EDGELIST},
        {"a.el", 0, APSP_FORMAT_EDGELIST},
        {"a.tsv", 0, APSP_FORMAT_TSV},
        {"a.csv", 0, APSP_FORMAT_CSV},
        {"a.csv", 1, APSP_FORMAT_CSV},
        {"a.tsv", 1, APSP_FORMAT_TSV},
        {"roads.csv.gz", 0, APSP_FORMAT_CSV},
        {"roads.txt.zst", 0, APSP_FORMAT_EDGELIST},
        {"roads.gr.bz2", 0, APSP_FORMAT_DIMACS},
        {"roads.gz", 0, APSP_FORMAT_HW3},
        {"a.npy.gz", 1, APSP_FORMAT_HW3},
        {"a.in", 0, APSP_FORMAT_HW3},
        {"-", 0, APSP_FORMAT_HW3},
        {".mtx", 0, APSP_FORMAT_HW3},
        {"d.gr/a", 0, APSP_FORMAT_HW3},
        {"a.npy", 1, APSP_FORMAT_NPY},
        {"a.txt", 1, APSP_FORMAT_TEXT},
        {"a.out", 1, APSP_FORMAT_HW3},
        {"a.npy", 0, APSP_FORMAT_NPY},
        {"a.gr", 1, APSP_FORMAT_HW3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(apsp_format_for(cases[i].path, cases[i].output) == cases[i].format, "%s (%s): %s",
              cases[i].path, cases[i].output ? "output" : "input",
              apsp_format_name(apsp_format_for(cases[i].path, cases[i].output)));
    const char *names[] = {"hw3", "dimacs", "mtx", "edgelist", "npy", "text", "csv", "tsv"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        apsp_format f;
        CHECK(apsp_format_parse(names[i], &f) == 0 && strcmp(apsp_format_name(f), names[i]) == 0,
              "format name %s", names[i]);
    }
    apsp_format f;
    CHECK(apsp_format_parse("parquet", &f) == -1, "an unknown format name is refused");
    apsp_graph *g;
    apsp_error err;
    CHECK(read_as("x.txt", APSP_FORMAT_TEXT, 0, 0, &g, &err) == APSP_ERR_USAGE && !g,
          "text is not an input format");
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 20);
    *len = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static void test_writers(void) {
    apsp_matrix *m;
    apsp_error err;
    if (apsp_matrix_create(3, &m, &err) != APSP_OK)
        exit(1);
    apsp_matrix_row(m, 0)[1] = 5;
    apsp_matrix_row(m, 2)[0] = 1234567;
    char path[512];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    CHECK(apsp_write_matrix(path, APSP_FORMAT_AUTO, m, &err) == APSP_OK, "text: %s", err.message);
    size_t len;
    char *text = slurp(path, &len);
    const char want[] = "0 5 inf\ninf 0 inf\n1234567 inf 0\n";
    CHECK(len == strlen(want) && memcmp(text, want, len) == 0, "text output: '%.*s'", (int)len,
          text);
    free(text);
    snprintf(path, sizeof path, "%s/out.npy", dir);
    CHECK(apsp_write_matrix(path, APSP_FORMAT_AUTO, m, &err) == APSP_OK, "npy: %s", err.message);
    char *npy = slurp(path, &len);
    /* 10 + 61 + 1 bytes of header, padded to 128 as NumPy does. */
    CHECK(len == 128 + 36, "npy: %zu bytes, expected a 128-byte header and 36 of data", len);
    CHECK(memcmp(npy, "\x93NUMPY\x01\x00", 8) == 0 && npy[8] == 118 && npy[9] == 0 &&
              npy[127] == '\n' && npy[126] == ' ',
          "npy: the preamble and the header's length");
    CHECK(strstr(npy + 10, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 3), }") ==
              npy + 10,
          "npy: the header dict: %.61s", npy + 10);
    int32_t cell;
    memcpy(&cell, npy + 128 + 4, 4);
    CHECK(cell == 5, "npy: cell (0, 1) is %d", cell);
    free(npy);
    snprintf(path, sizeof path, "%s/out.gr", dir);
    CHECK(apsp_write_matrix(path, APSP_FORMAT_DIMACS, m, &err) == APSP_ERR_USAGE,
          "dimacs is not an output format");
    CHECK(access(path, F_OK) != 0, "a refused format leaves no file");
    apsp_matrix_destroy(m);
}

static void remove_dir(void) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test-formats: could not remove %s\n", dir);
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/apsp-formats-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_dimacs();
    test_mtx();
    test_edgelist();
    test_long();
    test_graph_api();
    test_format_names();
    test_writers();
    remove_dir();
    printf("test-formats: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
