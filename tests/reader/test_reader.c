/* The hw3 reader against every malformed input class of the hw3 format (docs/reliability.md), the
 * valid edge cases it must accept, and the atomic output (apsp_output_*, apsp_write_hw3).
 *
 * Each input is written to a file in a fresh temporary directory and read with apsp_read_hw3;
 * refusals must carry the right status and a one-line message that names the file and the
 * place (edge index, byte offset, value). Accepted inputs are compared cell by cell with the
 * test oracle's own reader. */
#include "apsp.h"
#include "check.h"
#include "oracle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static const char *in_dir(const char *name) {
    static char paths[8][512];
    static unsigned next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

/* A growing hw3 image. */
typedef struct image {
    unsigned char *data;
    size_t len, cap;
} image;

static void put_bytes(image *im, const void *bytes, size_t n) {
    if (im->len + n > im->cap) {
        im->cap = (im->len + n) * 2;
        im->data = realloc(im->data, im->cap);
        if (!im->data) {
            perror("realloc");
            exit(1);
        }
    }
    memcpy(im->data + im->len, bytes, n);
    im->len += n;
}

static void put32(image *im, int32_t value) {
    uint32_t u = (uint32_t)value;
    unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 24)};
    put_bytes(im, b, 4);
}

static void put_edge(image *im, int32_t src, int32_t dst, int32_t w) {
    put32(im, src);
    put32(im, dst);
    put32(im, w);
}

/* V, E, and `edges` valid edges i -> (i + 1) % V with weight i % 7. */
static image graph(int32_t v, int32_t e, int32_t edges) {
    image im = {0};
    put32(&im, v);
    put32(&im, e);
    for (int32_t i = 0; i < edges; i++)
        put_edge(&im, i % v, (i + 1) % v, i % 7);
    return im;
}

static const char *write_image(const char *name, const image *im) {
    const char *path = in_dir(name);
    FILE *f = fopen(path, "wb");
    if (!f || (im->len && fwrite(im->data, 1, im->len, f) != im->len) || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    return path;
}

static void free_image(image *im) {
    free(im->data);
    *im = (image){0};
}

/* Reads `path`; the read must fail with `status` and a message holding every one of the
 * NULL-terminated substrings. */
static void expect_refused_path(const char *what, const char *path, apsp_status status, ...) {
    apsp_error err;
    memset(&err, 0, sizeof err);
    apsp_matrix *m = (apsp_matrix *)&err; /* must be reset to NULL */
    apsp_status got = apsp_read_hw3(path, &m, &err);
    CHECK(got == status, "%s: status %s, expected %s (message: %s)", what, apsp_status_name(got),
          apsp_status_name(status), got == APSP_OK ? "none" : err.message);
    CHECK(m == NULL, "%s: a refused read must leave *out NULL", what);
    if (got == APSP_OK) {
        apsp_matrix_destroy(m);
        return;
    }
    CHECK(err.status == got, "%s: error.status %d differs from the returned %d", what, err.status,
          got);
    CHECK(strchr(err.message, '\n') == NULL && err.message[0] != '\0',
          "%s: the message must be one non-empty line: '%s'", what, err.message);
    CHECK(strstr(err.message, path) != NULL, "%s: the message does not name the file: %s", what,
          err.message);
    va_list args;
    va_start(args, status);
    for (const char *s = va_arg(args, const char *); s; s = va_arg(args, const char *))
        CHECK(strstr(err.message, s) != NULL, "%s: the message lacks '%s': %s", what, s,
              err.message);
    va_end(args);
}

#define expect_refused(what, im, status, ...)                                                      \
    expect_refused_path(what, write_image(what, im), status, __VA_ARGS__)

/* The padding of a matrix: INF off the diagonal, 0 on it, across the padded square. */
static int padding_ok(const apsp_matrix *m) {
    for (size_t i = 0; i < m->padded; i++)
        for (size_t j = i < m->n ? m->n : 0; j < m->padded; j++)
            if (apsp_matrix_row(m, i)[j] != (i == j ? 0 : APSP_INF))
                return 0;
    return 1;
}

/* Reads `path`, which must be accepted, and compares it with the oracle's reading of
 * `oracle_path` (the same bytes; a FIFO cannot be read twice). */
static apsp_matrix *expect_accepted_path(const char *what, const char *path,
                                         const char *oracle_path) {
    apsp_error err;
    memset(&err, 0, sizeof err);
    apsp_matrix *m = NULL;
    apsp_status got = apsp_read_hw3(path, &m, &err);
    CHECK(got == APSP_OK && m, "%s: refused: %s: %s", what, apsp_status_name(got), err.message);
    if (got != APSP_OK || !m)
        return NULL;
    int32_t v;
    int32_t *d;
    char msg[512];
    if (oracle_read_hw3(oracle_path, &v, &d, msg, sizeof msg) != 0) {
        CHECK(0, "%s: the oracle refuses it: %s", what, msg);
        apsp_matrix_destroy(m);
        return NULL;
    }
    CHECK(m->n == (size_t)v, "%s: n = %zu, expected %d", what, m->n, v);
    CHECK(m->padded >= m->n && m->padded % APSP_MATRIX_ALIGN == 0 && m->stride >= m->padded,
          "%s: bad geometry n=%zu padded=%zu stride=%zu", what, m->n, m->padded, m->stride);
    size_t bad = 0;
    for (size_t i = 0; i < m->n && m->n == (size_t)v; i++)
        for (size_t j = 0; j < m->n; j++)
            if (apsp_matrix_row(m, i)[j] != d[i * m->n + j] && bad++ == 0)
                CHECK(0, "%s: cell (%zu, %zu) is %d, expected %d", what, i, j,
                      apsp_matrix_row(m, i)[j], d[i * m->n + j]);
    CHECK(padding_ok(m), "%s: the padding is not INF with a 0 diagonal", what);
    free(d);
    return m;
}

static apsp_matrix *expect_accepted(const char *what, const image *im) {
    const char *path = write_image(what, im);
    return expect_accepted_path(what, path, path);
}

static void test_header(void) {
    image im = {0};
    expect_refused("empty-file", &im, APSP_ERR_INPUT, "truncated header", "has 0 bytes", NULL);
    free_image(&im);
    for (int n = 1; n < 8; n++) {
        char what[32], has[32];
        snprintf(what, sizeof what, "header-%d-bytes", n);
        snprintf(has, sizeof has, "has %d bytes", n);
        im = graph(5, 0, 0);
        im.len = (size_t)n;
        expect_refused(what, &im, APSP_ERR_INPUT, "truncated header", has, NULL);
        free_image(&im);
    }
    im = graph(0, 0, 0);
    expect_refused("v-zero", &im, APSP_ERR_INPUT, "byte offset 0", "V = 0", NULL);
    free_image(&im);
    im = graph(-3, 0, 0);
    expect_refused("v-negative", &im, APSP_ERR_INPUT, "byte offset 0", "V = -3", NULL);
    free_image(&im);
    im = graph(INT32_MIN, 1, 0);
    expect_refused("v-int-min", &im, APSP_ERR_INPUT, "byte offset 0", "V = -2147483648", NULL);
    free_image(&im);
    im = graph(4, -1, 0);
    expect_refused("e-negative", &im, APSP_ERR_INPUT, "byte offset 4", "E = -1", NULL);
    free_image(&im);
    im = graph(4, INT32_MIN, 0);
    expect_refused("e-int-min", &im, APSP_ERR_INPUT, "byte offset 4", "E = -2147483648", NULL);
    free_image(&im);
}

static void test_edge_count(void) {
    image im = graph(4, 3, 2);
    expect_refused("fewer-edges", &im, APSP_ERR_INPUT, "truncated", "edge 2", "byte offset 32",
                   NULL);
    free_image(&im);
    for (int extra = 1; extra < 12; extra += 5) {
        char what[32];
        snprintf(what, sizeof what, "partial-edge-%d", extra);
        im = graph(4, 3, 3);
        im.len -= 12 - (size_t)extra;
        expect_refused(what, &im, APSP_ERR_INPUT, "truncated", "edge 2", "byte offset 32", NULL);
        free_image(&im);
    }
    im = graph(4, 1, 0);
    expect_refused("no-edges", &im, APSP_ERR_INPUT, "truncated", "edge 0", "byte offset 8", NULL);
    free_image(&im);
    /* E * 12 does not fit in 32 bits: the size check must not wrap around. */
    im = graph(4, INT32_MAX, 1);
    expect_refused("e-int-max", &im, APSP_ERR_INPUT, "truncated", "edge 1", "byte offset 20", NULL);
    free_image(&im);

    im = graph(4, 2, 2);
    put_bytes(&im, "\x01", 1);
    expect_refused("trailing-byte", &im, APSP_ERR_INPUT, "trailing garbage", "byte offset 32",
                   "1 byte", NULL);
    free_image(&im);
    im = graph(4, 2, 3);
    expect_refused("trailing-edge", &im, APSP_ERR_INPUT, "trailing garbage", "byte offset 32",
                   "12 bytes", NULL);
    free_image(&im);
    im = graph(4, 0, 1);
    expect_refused("trailing-after-header", &im, APSP_ERR_INPUT, "trailing garbage",
                   "byte offset 8", NULL);
    free_image(&im);
}

static void test_edge_values(void) {
    static const struct {
        const char *what;
        int edge; /* which of three edges is bad */
        int32_t src, dst, w;
        const char *expect[3];
    } cases[] = {
        {"src-negative", 1, -1, 2, 5, {"edge 1", "byte offset 20", "source vertex -1"}},
        {"src-int-min", 0, INT32_MIN, 2, 5, {"edge 0", "byte offset 8", "source vertex -2147"}},
        {"src-equals-v", 2, 4, 0, 5, {"edge 2", "byte offset 32", "source vertex 4"}},
        {"src-int-max", 2, INT32_MAX, 0, 5, {"edge 2", "byte offset 32", "[0, 4)"}},
        {"dst-negative", 2, 0, -5, 5, {"edge 2", "byte offset 36", "destination vertex -5"}},
        {"dst-equals-v", 0, 1, 4, 5, {"edge 0", "byte offset 12", "destination vertex 4"}},
        {"dst-large", 1, 1, 1000000, 5, {"edge 1", "byte offset 24", "[0, 4)"}},
        {"weight-negative", 0, 1, 2, -357913941, {"edge 0", "byte offset 16", "too negative"}},
        {"weight-int-min", 2, 1, 2, INT32_MIN, {"edge 2", "byte offset 40", "-2147483648"}},
        /* V = 4: (V - 1) * w < 2^30 - 1 allows w <= 357913940. */
        {"weight-over-limit", 1, 0, 3, 357913941, {"edge 1", "byte offset 28", "357913941"}},
        {"weight-int-max", 1, 0, 3, INT32_MAX, {"edge 1", "byte offset 28", "too large"}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        image im = {0};
        put32(&im, 4);
        put32(&im, 3);
        for (int e = 0; e < 3; e++) {
            if (e == cases[c].edge)
                put_edge(&im, cases[c].src, cases[c].dst, cases[c].w);
            else
                put_edge(&im, e, 3 - e, 10 + e);
        }
        expect_refused(cases[c].what, &im, APSP_ERR_INPUT, cases[c].expect[0], cases[c].expect[1],
                       cases[c].expect[2], NULL);
        free_image(&im);
    }

    /* The weight limit at several V, computed here from the rule in apsp.h. */
    static const int32_t sizes[] = {2, 3, 4, 100, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int32_t v = sizes[s];
        int32_t limit = (int32_t)((APSP_INF - 1) / (int64_t)(v - 1));
        CHECK((int64_t)(v - 1) * limit < APSP_INF && (int64_t)(v - 1) * (limit + 1) >= APSP_INF,
              "test bug: limit %d for V = %d", limit, v);
        char what[48], value[24];
        image im = {0};
        put32(&im, v);
        put32(&im, 2);
        put_edge(&im, 0, v - 1, limit);
        put_edge(&im, v - 1, 0, limit);
        snprintf(what, sizeof what, "weight-at-limit-v%d", v);
        apsp_matrix *m = expect_accepted(what, &im);
        if (m)
            CHECK(apsp_matrix_row(m, 0)[v - 1] == limit, "%s: weight not kept", what);
        apsp_matrix_destroy(m);
        free_image(&im);
        im = (image){0};
        put32(&im, v);
        put32(&im, 2);
        put_edge(&im, 0, v - 1, limit);
        put_edge(&im, v - 1, 0, limit + 1);
        snprintf(what, sizeof what, "weight-above-limit-v%d", v);
        snprintf(value, sizeof value, "weight %d", limit + 1);
        expect_refused(what, &im, APSP_ERR_INPUT, "edge 1", "byte offset 28", value, NULL);
        free_image(&im);
    }
}

static void test_too_large(void) {
    /* Neither may allocate: V*V*4 overflows, or exceeds any machine's memory. */
    image im = graph(INT32_MAX, 0, 0);
    expect_refused("v-int-max", &im, APSP_ERR_TOO_LARGE, "V = 2147483647", NULL);
    free_image(&im);
    im = graph(INT32_MAX, 1, 0);
    put_edge(&im, 0, INT32_MAX - 1, 0);
    expect_refused("v-int-max-with-edge", &im, APSP_ERR_TOO_LARGE, "V = 2147483647", NULL);
    free_image(&im);
    /* 4 TB: refused with both sizes, unless this machine really has that much memory. */
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t memory = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
    if (memory && memory < (uint64_t)4000000 * 1000000) {
        im = graph(1000000, 0, 0);
        expect_refused("v-million", &im, APSP_ERR_TOO_LARGE, "V = 1000000", "memory", NULL);
        free_image(&im);
    }
    /* The file size is checked first: a header promising edges that are not there is an input
     * error whatever V is. */
    im = graph(1000000, 5, 0);
    expect_refused("v-million-truncated", &im, APSP_ERR_INPUT, "truncated", "edge 0", NULL);
    free_image(&im);
}

static void test_paths(void) {
    expect_refused_path("directory", dir, APSP_ERR_INPUT, "directory", NULL);
    expect_refused_path("missing", in_dir("no-such-file.bin"), APSP_ERR_INPUT, "cannot open",
                        strerror(ENOENT), NULL);
    apsp_error err;
    apsp_matrix *m = NULL;
    apsp_status got = apsp_read_hw3("/dev/null", &m, &err);
    CHECK(got == APSP_ERR_INPUT && !m && strstr(err.message, "truncated header"),
          "/dev/null: %s: %s", apsp_status_name(got), got ? err.message : "accepted");
    apsp_matrix_destroy(got == APSP_OK ? m : NULL);
}

/* A FIFO has no size to check in advance: the reader must find truncation and trailing bytes
 * while reading. A child process writes the image into it. */
static void through_fifo(const char *what, const image *im, apsp_status status,
                         const char *expect) {
    const char *path = in_dir("fifo");
    unlink(path);
    if (mkfifo(path, 0600) != 0) {
        CHECK(0, "%s: mkfifo: %s", what, strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        signal(SIGPIPE, SIG_DFL);
        int fd = open(path, O_WRONLY);
        size_t done = 0;
        while (fd >= 0 && done < im->len) {
            ssize_t n = write(fd, im->data + done, im->len - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        _exit(0);
    }
    CHECK(child > 0, "%s: fork: %s", what, strerror(errno));
    if (child <= 0)
        return;
    if (status == APSP_OK) {
        apsp_matrix *m = expect_accepted_path(what, path, write_image("fifo-copy", im));
        apsp_matrix_destroy(m);
    } else {
        expect_refused_path(what, path, status, expect, NULL);
    }
    waitpid(child, NULL, 0);
    unlink(path);
}

static void test_fifo(void) {
    image im = graph(70, 100, 100);
    through_fifo("fifo-valid", &im, APSP_OK, NULL);
    im.len -= 7;
    through_fifo("fifo-truncated", &im, APSP_ERR_INPUT, "edge 99");
    free_image(&im);
    im = graph(70, 100, 101);
    through_fifo("fifo-trailing", &im, APSP_ERR_INPUT, "trailing garbage");
    free_image(&im);
}

static void test_accepted(void) {
    image im = graph(1, 0, 0);
    apsp_matrix *m = expect_accepted("v-one", &im);
    if (m)
        CHECK(m->n == 1 && apsp_matrix_row(m, 0)[0] == 0, "v-one: wrong matrix");
    apsp_matrix_destroy(m);
    free_image(&im);

    im = graph(1, 2, 0);
    put_edge(&im, 0, 0, 7);
    put_edge(&im, 0, 0, 0);
    m = expect_accepted("v-one-self-loops", &im);
    if (m)
        CHECK(apsp_matrix_row(m, 0)[0] == 0, "v-one-self-loops: d(0,0) must stay 0");
    apsp_matrix_destroy(m);
    free_image(&im);

    im = graph(5, 0, 0);
    m = expect_accepted("e-zero", &im);
    apsp_matrix_destroy(m);
    free_image(&im);

    im = graph(3, 6, 0);
    put_edge(&im, 1, 1, 5);
    put_edge(&im, 0, 1, 7);
    put_edge(&im, 0, 1, 3);
    put_edge(&im, 2, 2, 0);
    put_edge(&im, 0, 1, 9);
    put_edge(&im, 2, 0, 0);
    m = expect_accepted("self-loops-and-duplicates", &im);
    if (m) {
        CHECK(apsp_matrix_row(m, 1)[1] == 0, "self-loop weight 5 reached the diagonal");
        CHECK(apsp_matrix_row(m, 0)[1] == 3, "duplicates 7, 3, 9 kept %d, not 3",
              apsp_matrix_row(m, 0)[1]);
        CHECK(apsp_matrix_row(m, 2)[0] == 0, "a zero-weight edge was lost");
    }
    apsp_matrix_destroy(m);
    free_image(&im);

    /* More edges than one read chunk might hold, V beyond one tile, with duplicates. */
    im = graph(130, 200000, 0);
    uint32_t x = 12345;
    for (int e = 0; e < 200000; e++) {
        x = x * 1103515245u + 12345u;
        int32_t s = (int32_t)((x >> 8) % 130);
        x = x * 1103515245u + 12345u;
        int32_t t = (int32_t)((x >> 8) % 130);
        put_edge(&im, s, t, (int32_t)((x >> 4) % 1001));
    }
    m = expect_accepted("many-edges", &im);
    apsp_matrix_destroy(m);
    free_image(&im);
}

static int count_entries(const char *path) {
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static int file_equals(const char *path, const void *bytes, size_t len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char *buf = malloc(len + 1);
    size_t got = buf ? fread(buf, 1, len + 1, f) : 0;
    int same = buf && got == len && memcmp(buf, bytes, len) == 0;
    free(buf);
    fclose(f);
    return same;
}

static void expect_output_refused(const char *what, const char *path, const char *expect) {
    apsp_error err;
    memset(&err, 0, sizeof err);
    apsp_output *out = (apsp_output *)&err;
    apsp_status got = apsp_output_open(path, &out, &err);
    CHECK(got == APSP_ERR_OUTPUT, "%s: status %s, expected output error", what,
          apsp_status_name(got));
    CHECK(out == NULL, "%s: a refused open must leave *out NULL", what);
    if (got == APSP_OK) {
        apsp_output_abort(out);
        return;
    }
    CHECK(strstr(err.message, expect) && !strchr(err.message, '\n'),
          "%s: the message lacks '%s': %s", what, expect, err.message);
}

static void test_output(void) {
    char out_dir[512];
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    if (mkdir(out_dir, 0700) != 0) {
        CHECK(0, "mkdir %s: %s", out_dir, strerror(errno));
        return;
    }
    char target[600], missing[600], slash[600];
    snprintf(target, sizeof target, "%s/result.bin", out_dir);
    snprintf(missing, sizeof missing, "%s/no-such-dir/result.bin", out_dir);
    snprintf(slash, sizeof slash, "%s/", out_dir);
    expect_output_refused("output-directory", out_dir, "directory");
    expect_output_refused("output-trailing-slash", slash, "directory");
    expect_output_refused("output-missing-dir", missing, "no-such-dir");
    expect_output_refused("output-empty-path", "", "empty");
    CHECK(count_entries(out_dir) == 0, "refused opens left files in %s", out_dir);

    /* Abort: the temporary file exists while open, beside the target, and vanishes; nothing
     * else appears. */
    apsp_error err;
    apsp_output *out = NULL;
    apsp_status got = apsp_output_open(target, &out, &err);
    CHECK(got == APSP_OK && out, "open %s: %s", target, got ? err.message : "");
    if (got == APSP_OK) {
        const char *temp = apsp_output_temp_path(out);
        char prefix[700];
        snprintf(prefix, sizeof prefix, "%s/.result.bin.apsp-", out_dir);
        CHECK(strncmp(temp, prefix, strlen(prefix)) == 0, "temp path %s is not %s*", temp, prefix);
        /* On Linux the temporary file is unnamed (O_TMPFILE) until commit, so the directory
         * stays empty; elsewhere it is `temp`. */
        CHECK(access(temp, F_OK) == 0 || count_entries(out_dir) == 0,
              "the temporary file %s does not exist", temp);
        CHECK(access(target, F_OK) != 0, "the target exists before commit");
        apsp_output_abort(out);
    }
    CHECK(count_entries(out_dir) == 0, "abort left %d entries in %s", count_entries(out_dir),
          out_dir);
    apsp_output_abort(NULL);

    /* An existing target survives an abort byte for byte. */
    static const char old[] = "previous output, not to be clobbered";
    image keep = {0};
    put_bytes(&keep, old, sizeof old);
    FILE *f = fopen(target, "wb");
    CHECK(f && fwrite(old, 1, sizeof old, f) == sizeof old && fclose(f) == 0, "write %s", target);
    got = apsp_output_open(target, &out, &err);
    CHECK(got == APSP_OK, "open over an existing file: %s", got ? err.message : "");
    if (got == APSP_OK)
        apsp_output_abort(out);
    CHECK(file_equals(target, old, sizeof old), "abort changed the existing target");
    CHECK(count_entries(out_dir) == 1, "abort left a temporary file beside the target");
    free_image(&keep);

    /* Commit writes exactly V*V little-endian int32 of the matrix and replaces the target. */
    image im = graph(67, 3, 0);
    put_edge(&im, 0, 66, 5);
    put_edge(&im, 66, 1, 1000);
    put_edge(&im, 3, 3, 9);
    apsp_matrix *m = expect_accepted("commit-input", &im);
    free_image(&im);
    if (m) {
        image want = {0};
        for (size_t i = 0; i < m->n; i++)
            for (size_t j = 0; j < m->n; j++)
                put32(&want, apsp_matrix_row(m, i)[j]);
        got = apsp_output_open(target, &out, &err);
        if (got == APSP_OK)
            got = apsp_output_commit_hw3(out, m, &err);
        CHECK(got == APSP_OK, "commit: %s", got ? err.message : "");
        CHECK(file_equals(target, want.data, want.len), "commit wrote the wrong bytes");
        CHECK(count_entries(out_dir) == 1, "commit left a temporary file");
        CHECK(unlink(target) == 0, "unlink %s", target);
        got = apsp_write_hw3(target, m, &err);
        CHECK(got == APSP_OK, "apsp_write_hw3: %s", got ? err.message : "");
        CHECK(file_equals(target, want.data, want.len), "apsp_write_hw3 wrote the wrong bytes");
        CHECK(count_entries(out_dir) == 1, "apsp_write_hw3 left a temporary file");
        got = apsp_write_hw3(missing, m, &err);
        CHECK(got == APSP_ERR_OUTPUT, "apsp_write_hw3 into a missing directory: %s",
              apsp_status_name(got));
        free_image(&want);
        apsp_matrix_destroy(m);
    }
    unlink(target);
    rmdir(out_dir);
}

/* Removes the test directory, with whatever a failed check left in it. */
static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char child[1024];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(child);
        else
            unlink(child);
    }
    closedir(d);
    rmdir(path);
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/apsp-test-reader-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    test_header();
    test_edge_count();
    test_edge_values();
    test_too_large();
    test_paths();
    test_fifo();
    test_accepted();
    test_output();
    remove_tree(dir);
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
