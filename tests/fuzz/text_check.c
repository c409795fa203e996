/* The text readers' fuzz properties; see text_check.h. */
#define _GNU_SOURCE /* memfd_create, pipe2 */
#include "text_check.h"
#include "oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int file_fd = -1;
static char file_path[64];

static text_outcome failed(char *why, size_t why_size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(why, why_size, format, args);
    va_end(args);
    return TEXT_FAILED;
}

static int write_all(int fd, const uint8_t *data, size_t size) {
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Reads path; a refusal must be clean (text_check.h). */
static text_outcome read_checked(apsp_format format, const char *path, apsp_graph **out,
                                 char *refusal, size_t refusal_size, char *why, size_t why_size) {
    apsp_read_options o;
    apsp_read_options_init(&o);
    o.format = format;
    apsp_error err;
    memset(&err, 0x55, sizeof err);
    apsp_graph *g = (apsp_graph *)&err;
    apsp_status status = apsp_read_graph(path, &o, &g, &err);
    *out = NULL;
    if (status == APSP_OK) {
        if (!g)
            return failed(why, why_size, "%s: accepted with a NULL graph", path);
        *out = g;
        return TEXT_ACCEPTED;
    }
    if (g)
        return failed(why, why_size, "%s: refused but *out is not NULL", path);
    if (status != APSP_ERR_INPUT && status != APSP_ERR_TOO_LARGE && status != APSP_ERR_NO_MEMORY)
        return failed(why, why_size, "%s: refused with status '%s'", path,
                      apsp_status_name(status));
    if (!memchr(err.message, '\0', sizeof err.message) || err.message[0] == '\0' ||
        strchr(err.message, '\n') || !strstr(err.message, path))
        return failed(why, why_size, "%s: the message is not one line naming the file: '%.200s'",
                      path, err.message);
    /* Where: a line of the text, or a byte of a compressed stream that does not decode. */
    if (status == APSP_ERR_INPUT && !strstr(err.message, ": line ") &&
        !strstr(err.message, " stream)"))
        return failed(why, why_size, "%s: the message names no line: '%s'", path, err.message);
    /* Without the name, for comparing the file's refusal with the pipe's. */
    snprintf(refusal, refusal_size, "%s", err.message + strlen(path));
    return TEXT_REFUSED;
}

static text_outcome check_graph(const apsp_graph *g, char *why, size_t why_size) {
    if (g->vertices < 1 || g->vertices > INT32_MAX)
        return failed(why, why_size, "accepted with V = %zu", g->vertices);
    /* The default read options are int32's: a whole number written as a real is an integer. */
    if (g->real_weight || (g->edges && !g->weight))
        return failed(why, why_size, "int32's read options gave real weights");
    int64_t most = g->vertices > 1 ? (APSP_INF - 1) / (int64_t)(g->vertices - 1) : INT32_MAX;
    for (size_t e = 0; e < g->edges; e++)
        if (g->source[e] < 0 || (size_t)g->source[e] >= g->vertices || g->target[e] < 0 ||
            (size_t)g->target[e] >= g->vertices || g->weight[e] < -most - (g->vertices == 1) ||
            g->weight[e] > most)
            return failed(why, why_size, "edge %zu (%d, %d, %lld) breaks V = %zu", e, g->source[e],
                          g->target[e], (long long)g->weight[e], g->vertices);
    return TEXT_ACCEPTED;
}

static int same_graph(const apsp_graph *a, const apsp_graph *b) {
    if (a->vertices != b->vertices || a->edges != b->edges)
        return 0;
    if (a->edges == 0)
        return 1; /* (the arrays of an empty graph may be NULL) */
    return memcmp(a->source, b->source, a->edges * sizeof *a->source) == 0 &&
           memcmp(a->target, b->target, a->edges * sizeof *a->target) == 0 &&
           memcmp(a->weight, b->weight, a->edges * sizeof *a->weight) == 0;
}

/* The CPU backend's distances against the oracle's over the same edges. */
static text_outcome solve(const apsp_graph *g, char *why, size_t why_size) {
    int32_t v = (int32_t)g->vertices;
    int32_t *d = oracle_matrix_new(v);
    if (!d)
        return failed(why, why_size, "out of memory");
    for (size_t e = 0; e < g->edges; e++)
        oracle_add_edge(d, v, g->source[e], g->target[e], (int32_t)g->weight[e]);
    oracle_floyd_warshall(d, v);
    apsp_matrix *m = NULL;
    apsp_error err = {0};
    text_outcome result = TEXT_SOLVED;
    apsp_options opts;
    apsp_options_init(&opts);
    opts.backend = APSP_BACKEND_CPU;
    opts.threads = 1;
    apsp_status status = apsp_graph_to_matrix(g, &m, &err);
    if (status == APSP_OK)
        status = apsp_solve(m, &opts, NULL, &err);
    /* A negative cycle: apsp must say so exactly when the oracle finds one, naming a vertex on
     * it; no distances to compare then. */
    int cycle = oracle_negative_cycle(d, v);
    if (status == APSP_ERR_NEGATIVE_CYCLE || cycle) {
        int named = oracle_named_vertex(err.message);
        if (status != APSP_ERR_NEGATIVE_CYCLE || !cycle)
            result = failed(why, why_size, "apsp: %s, the oracle %s a negative cycle",
                            apsp_status_name(status), cycle ? "finds" : "finds no");
        else if (named < 0 || named >= v || !oracle_on_negative_cycle(d, v, named))
            result =
                failed(why, why_size, "the negative cycle's vertex is not on one: %s", err.message);
        apsp_matrix_destroy(m);
        free(d);
        return result;
    }
    if (status != APSP_OK)
        result = failed(why, why_size, "to_matrix or solve: %s", err.message);
    for (int32_t i = 0; result == TEXT_SOLVED && i < v; i++)
        for (int32_t j = 0; j < v && result == TEXT_SOLVED; j++) {
            int32_t got = apsp_matrix_row(m, (size_t)i)[j],
                    want = d[(size_t)i * (size_t)v + (size_t)j];
            if (got != want)
                result = failed(why, why_size, "cell (%d, %d) is %d, the oracle says %d", i, j, got,
                                want);
        }
    apsp_matrix_destroy(m);
    free(d);
    return result;
}

/* The same bytes through a pipe must give the same answer. */
static text_outcome through_pipe(apsp_format format, const uint8_t *data, size_t size,
                                 text_outcome first, const apsp_graph *g, const char *refusal,
                                 char *why, size_t why_size) {
    int fds[2];
    if (size > 65536 || pipe2(fds, O_CLOEXEC) != 0)
        return first;
    int ok = write_all(fds[1], data, size) == 0;
    close(fds[1]);
    text_outcome result = first;
    if (ok) {
        char path[64], pipe_refusal[1024] = "";
        snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
        apsp_graph *piped = NULL;
        text_outcome p =
            read_checked(format, path, &piped, pipe_refusal, sizeof pipe_refusal, why, why_size);
        if (p == TEXT_FAILED)
            result = p;
        else if (p != first || (p == TEXT_REFUSED && strcmp(refusal, pipe_refusal) != 0) ||
                 (p == TEXT_ACCEPTED && !same_graph(g, piped)))
            result = failed(why, why_size, "the file gave %s'%s', the pipe %s'%s'",
                            first == TEXT_ACCEPTED ? "a graph" : "", refusal,
                            p == TEXT_ACCEPTED ? "a graph" : "", pipe_refusal);
        apsp_graph_destroy(piped);
    }
    close(fds[0]);
    return result;
}

text_outcome text_check(apsp_format format, const uint8_t *data, size_t size, char *why,
                        size_t why_size) {
    if (file_fd < 0) {
        file_fd = memfd_create("apsp-fuzz-text", MFD_CLOEXEC);
        if (file_fd < 0)
            return failed(why, why_size, "memfd_create: %s", strerror(errno));
        snprintf(file_path, sizeof file_path, "/proc/self/fd/%d", file_fd);
    }
    if (ftruncate(file_fd, 0) != 0 || lseek(file_fd, 0, SEEK_SET) != 0 ||
        write_all(file_fd, data, size) != 0)
        return failed(why, why_size, "writing the memfd: %s", strerror(errno));
    apsp_graph *g = NULL;
    char refusal[1024] = "";
    text_outcome result =
        read_checked(format, file_path, &g, refusal, sizeof refusal, why, why_size);
    if (result == TEXT_ACCEPTED)
        result = check_graph(g, why, why_size);
    if (result != TEXT_FAILED)
        result = through_pipe(format, data, size, result, g, refusal, why, why_size);
    if (result == TEXT_ACCEPTED && g->vertices <= TEXT_CHECK_SOLVE_MAX_V)
        result = solve(g, why, why_size);
    apsp_graph_destroy(g);
    return result;
}
