/* DIMACS shortest-path format (.gr), as the 9th DIMACS Implementation Challenge defines it:
 *     c a comment
 *     p sp V E          once, before any arc
 *     a u v w           E arc lines, u and v from 1 to V, w an integer
 * Blank lines are allowed anywhere; any other line, a second problem line, an arc before the
 * problem line, and a count of arcs other than E are refused with their line. */
#include "base/graph.h"
#include "formats/readers.h"

#include <stddef.h>
#include <string.h>

typedef struct dimacs {
    text_input t;
    const apsp_read_options *options;
    apsp_graph *g;
    uint64_t problem_line; /* 0: none yet */
    uint64_t announced;    /* E of the problem line */
} dimacs;

/* "c" starts a comment only as a word of its own: "c ...", or "c" alone. */
static int is_comment(const text_input *t) {
    return *t->p == 'c' && (t->p + 1 == t->end || t->p[1] == ' ' || t->p[1] == '\t' ||
                            t->p[1] == '\n' || t->p[1] == '\r');
}

static apsp_status problem_line(dimacs *d, apsp_error *error) {
    text_input *t = &d->t;
    if (d->problem_line)
        return text_fail(t, error, "a second problem line (the first is line %llu)",
                         (unsigned long long)d->problem_line);
    char word[8];
    uint64_t v = 0, e = 0;
    t->p++;
    apsp_status status = text_word(t, "'sp' after 'p'", word, sizeof word, error);
    if (status == APSP_OK && strcmp(word, "sp") != 0) {
        t->p -= strlen(word);
        return text_fail(t, error, "problem type '%s': only 'sp' (shortest paths) is read", word);
    }
    if (status == APSP_OK)
        status = text_uint(t, "the vertex count", INT32_MAX, &v, error);
    if (status == APSP_OK && v == 0)
        return text_fail(t, error, "vertex count 0: a graph needs at least one vertex");
    if (status == APSP_OK)
        status = text_uint(t, "the arc count", INT64_MAX, &e, error);
    if (status == APSP_OK)
        status = text_line_done(t, "the arc count", error);
    if (status == APSP_OK)
        status = apsp_graph_create((size_t)v, 0, &d->g, error);
    if (status == APSP_OK)
        status = reserve_announced(d->g, t, e, 8, error); /* "a 1 1 0\n" */
    d->problem_line = t->line;
    d->announced = e;
    return status;
}

static apsp_status arc_line(dimacs *d, apsp_error *error) {
    text_input *t = &d->t;
    if (!d->problem_line)
        return text_fail(t, error, "an arc before the problem line 'p sp V E'");
    if (d->g->edges == d->announced)
        return text_fail(t, error, "more arcs than the E = %llu of the problem line (line %llu)",
                         (unsigned long long)d->announced, (unsigned long long)d->problem_line);
    uint64_t u = 0, v = 0;
    int64_t w = 1;
    uint64_t n = d->g->vertices;
    t->p++;
    if (!(t->p < t->end && (*t->p == ' ' || *t->p == '\t')))
        return text_fail(t, error, "expected 'a u v w'");
    apsp_status status = text_uint(t, "the source vertex", UINT64_MAX, &u, error);
    if (status == APSP_OK && (u < 1 || u > n))
        return text_fail(t, error, "source vertex %llu is out of range [1, %llu]",
                         (unsigned long long)u, (unsigned long long)n);
    if (status == APSP_OK)
        status = text_uint(t, "the target vertex", UINT64_MAX, &v, error);
    if (status == APSP_OK && (v < 1 || v > n))
        return text_fail(t, error, "target vertex %llu is out of range [1, %llu]",
                         (unsigned long long)v, (unsigned long long)n);
    if (status == APSP_OK)
        status = text_int(t, "the weight", &w, error);
    if (status == APSP_OK)
        status = text_line_done(t, "the weight", error);
    if (status == APSP_OK)
        status = text_check_weight(t, d->options, w, (size_t)n, error); /* integers only */
    if (status == APSP_OK)
        status = graph_push(d->g, (int32_t)(u - 1), (int32_t)(v - 1), w, error);
    return status;
}

static apsp_status one_line(dimacs *d, apsp_error *error) {
    text_input *t = &d->t;
    if (is_comment(t))
        return APSP_OK;
    if (*t->p == 'p')
        return problem_line(d, error);
    if (*t->p == 'a')
        return arc_line(d, error);
    char shown[96];
    return text_fail(t, error, "expected a line 'c ...', 'p sp V E' or 'a u v w', found %s",
                     text_field(t, shown, sizeof shown));
}

/* The lines after the problem line: arcs, comments, and what is refused. */
static apsp_status body_lines(void *reader, apsp_error *error) {
    dimacs *d = reader;
    apsp_status status = APSP_OK;
    while (status == APSP_OK && text_next_line(&d->t, ""))
        status = one_line(d, error);
    return status;
}

/* Read in pieces, the arcs must be exactly E (else they are read again in order, for the line). */
static int accept_pieces(const void *reader) {
    const dimacs *d = reader;
    return d->g->edges == d->announced;
}

static const body_reader arc_body = {
    .size = sizeof(dimacs),
    .input_offset = offsetof(dimacs, t),
    .graph_offset = offsetof(dimacs, g),
    .edges_per_line = 1,
    .body = body_lines,
    .accept = accept_pieces,
};

static apsp_status read_lines(dimacs *d, apsp_error *error) {
    text_input *t = &d->t;
    apsp_status status = APSP_OK;
    while (status == APSP_OK && !d->problem_line && text_next_line(t, ""))
        status = one_line(d, error);
    if (status == APSP_OK && d->problem_line)
        status = parse_body(d, &arc_body, d->options->threads, error);
    if (status == APSP_OK && !d->problem_line)
        status = text_fail(t, error, "the end, and no problem line 'p sp V E'");
    else if (status == APSP_OK && d->g->edges < d->announced)
        status = text_fail(t, error,
                           "the end after %zu arcs, but the problem line (line %llu) "
                           "says E = %llu",
                           d->g->edges, (unsigned long long)d->problem_line,
                           (unsigned long long)d->announced);
    return status;
}

apsp_status read_dimacs_graph(const char *path, const apsp_read_options *options, apsp_graph **out,
                              apsp_error *error) {
    dimacs d = {.options = options};
    apsp_status status = text_open(path, &d.t, 0, error);
    if (status == APSP_OK)
        status = read_lines(&d, error);
    text_free(&d.t);
    if (status != APSP_OK) {
        apsp_graph_destroy(d.g);
        d.g = NULL;
    }
    *out = d.g;
    return status;
}
