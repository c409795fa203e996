/* The fuzzer's properties; see hw3_check.h. */
#define _GNU_SOURCE /* memfd_create, pipe2 */
#include "hw3_check.h"
#include "apsp.h"
#include "oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { HEADER_BYTES = 8, EDGE_BYTES = 12 };

/* The input as a regular file: a memfd, reopened by the reader through /proc/self/fd. */
static int file_fd = -1;
static char file_path[64];
/* Where apsp_write_hw3 writes (it needs a real directory for its temporary file). */
static char out_dir[512];
static char out_path[600];

static hw3_outcome failed(char *why, size_t why_size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(why, why_size, format, args);
    va_end(args);
    return HW3_FAILED;
}

static void remove_out_dir(void) {
    unlink(out_path);
    rmdir(out_dir);
}

static int set_up(char *why, size_t why_size) {
    if (file_fd >= 0)
        return 0;
    int fd = memfd_create("apsp-fuzz-input", MFD_CLOEXEC);
    if (fd < 0) {
        failed(why, why_size, "memfd_create: %s", strerror(errno));
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(out_dir, sizeof out_dir, "%s/apsp-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(out_dir)) {
        failed(why, why_size, "mkdtemp %s: %s", out_dir, strerror(errno));
        close(fd);
        return -1;
    }
    snprintf(out_path, sizeof out_path, "%s/out.bin", out_dir);
    atexit(remove_out_dir);
    snprintf(file_path, sizeof file_path, "/proc/self/fd/%d", fd);
    file_fd = fd;
    return 0;
}

static int32_t le32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* Whether the reader would allocate the matrix of v vertices rather than refuse it. */
static int matrix_fits(int32_t v) {
    uint64_t bytes = apsp_matrix_bytes((uint64_t)v);
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t memory =
        pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : UINT64_MAX;
    return bytes != 0 && bytes <= memory;
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

/* Reads path with apsp_read_hw3. A refusal must be clean: a reader's status, *out reset to NULL,
 * one non-empty line that names the file. Returns HW3_ACCEPTED (with *out), HW3_REFUSED (with
 * the message in refusal) or HW3_FAILED. */
static hw3_outcome read_checked(const char *path, const char *how, apsp_matrix **out, char *refusal,
                                size_t refusal_size, char *why, size_t why_size) {
    apsp_error err;
    memset(&err, 0x55, sizeof err);
    apsp_matrix *m = (apsp_matrix *)&err; /* the reader must reset it */
    apsp_status status = apsp_read_hw3(path, &m, &err);
    *out = NULL;
    if (status == APSP_OK) {
        if (!m)
            return failed(why, why_size, "%s: accepted with a NULL matrix", how);
        *out = m;
        return HW3_ACCEPTED;
    }
    if (m != NULL)
        return failed(why, why_size, "%s: refused (%s) but *out is not NULL", how,
                      apsp_status_name(status));
    if (status != APSP_ERR_INPUT && status != APSP_ERR_TOO_LARGE && status != APSP_ERR_NO_MEMORY)
        return failed(why, why_size, "%s: refused with status '%s', not a reader's", how,
                      apsp_status_name(status));
    if (err.status != status)
        return failed(why, why_size, "%s: error.status %d differs from the returned %d", how,
                      (int)err.status, (int)status);
    if (!memchr(err.message, '\0', sizeof err.message))
        return failed(why, why_size, "%s: the error message is not terminated", how);
    if (err.message[0] == '\0' || strchr(err.message, '\n'))
        return failed(why, why_size, "%s: the error message is not one non-empty line: '%s'", how,
                      err.message);
    if (!strstr(err.message, path))
        return failed(why, why_size, "%s: the error message does not name %s: '%s'", how, path,
                      err.message);
    snprintf(refusal, refusal_size, "%s", err.message);
    return HW3_REFUSED;
}

/* n = v; every real cell in [0, APSP_INF], 0 on the diagonal and, with expect (v*v, row-major),
 * equal to it; padding INF off the diagonal and 0 on it. */
static hw3_outcome check_matrix(const apsp_matrix *m, int32_t v, const int32_t *expect,
                                const char *what, char *why, size_t why_size) {
    size_t n = (size_t)v;
    if (m->n != n || m->padded < n || m->padded % APSP_MATRIX_ALIGN != 0 ||
        m->padded - n >= APSP_MATRIX_ALIGN || m->stride < m->padded)
        return failed(why, why_size, "%s: V = %d but n = %zu, padded = %zu, stride = %zu", what, v,
                      m->n, m->padded, m->stride);
    for (size_t i = 0; i < m->padded; i++) {
        const int32_t *row = apsp_matrix_row(m, i);
        for (size_t j = 0; j < m->padded; j++) {
            int32_t got = row[j];
            if (i >= n || j >= n) {
                if (got != (i == j ? 0 : APSP_INF))
                    return failed(why, why_size, "%s: padding cell (%zu, %zu) of %zu is %d", what,
                                  i, j, m->padded, got);
            } else if (got <= -APSP_INF || got > APSP_INF || (i == j && got != 0)) {
                return failed(why, why_size, "%s: cell (%zu, %zu) is %d", what, i, j, got);
            } else if (expect && got != expect[i * n + j]) {
                return failed(why, why_size, "%s: cell (%zu, %zu) is %d, the oracle says %d", what,
                              i, j, got, expect[i * n + j]);
            }
        }
    }
    return HW3_ACCEPTED;
}

/* Solves m with the CPU backend on one thread and writes it; both must match the oracle's
 * Floyd-Warshall of d (which this turns into the distances). */
static hw3_outcome solve_and_write(apsp_matrix *m, int32_t v, int32_t *d, char *why,
                                   size_t why_size) {
    oracle_floyd_warshall(d, v);
    apsp_options options;
    apsp_options_init(&options);
    options.backend = APSP_BACKEND_CPU;
    options.threads = 1;
    apsp_error err;
    apsp_status status = apsp_solve(m, &options, NULL, &err);
    int cycle = oracle_negative_cycle(d, v);
    if (cycle != (status == APSP_ERR_NEGATIVE_CYCLE))
        return failed(why, why_size, "apsp_solve: %s (%s), the oracle %s a negative cycle",
                      apsp_status_name(status), err.message, cycle ? "finds" : "finds no");
    if (cycle)
        return HW3_SOLVED;
    if (status != APSP_OK)
        return failed(why, why_size, "apsp_solve: %s: %s", apsp_status_name(status), err.message);
    if (check_matrix(m, v, d, "solved", why, why_size) == HW3_FAILED)
        return HW3_FAILED;

    status = apsp_write_hw3(out_path, m, &err);
    if (status != APSP_OK)
        return failed(why, why_size, "apsp_write_hw3: %s: %s", apsp_status_name(status),
                      err.message);
    size_t cells = (size_t)v * (size_t)v;
    hw3_outcome result = HW3_SOLVED;
    FILE *f = fopen(out_path, "rb");
    if (!f)
        return failed(why, why_size, "%s: %s", out_path, strerror(errno));
    for (size_t c = 0; c < cells && result == HW3_SOLVED; c++) {
        uint8_t b[4];
        if (fread(b, 1, 4, f) != 4)
            result = failed(why, why_size, "written output: only %zu of %zu cells", c, cells);
        else if (le32(b) != d[c])
            result = failed(why, why_size, "written output: cell %zu is %d, the oracle says %d", c,
                            le32(b), d[c]);
    }
    if (result == HW3_SOLVED && fgetc(f) != EOF)
        result = failed(why, why_size, "written output: longer than %zu cells", cells);
    fclose(f);
    unlink(out_path);
    return result;
}

hw3_outcome hw3_check(const uint8_t *data, size_t size, char *why, size_t why_size) {
    if (set_up(why, why_size) != 0)
        return HW3_FAILED;
    int have_header = size >= HEADER_BYTES;
    int32_t v = have_header ? le32(data) : 0, e = have_header ? le32(data + 4) : 0;
    int large = have_header && v > HW3_CHECK_MAX_V;
    /* The reader allocates before reading the edges: on a regular file once the size matches
     * the header, on a pipe at once. */
    int allocates = large && e >= 0 && matrix_fits(v);
    if (allocates && size == HEADER_BYTES + (uint64_t)e * EDGE_BYTES)
        return HW3_SKIPPED_LARGE;

    if (ftruncate(file_fd, 0) != 0 || pwrite(file_fd, data, size, 0) != (ssize_t)size)
        return failed(why, why_size, "writing the input to the memfd: %s", strerror(errno));

    apsp_matrix *m = NULL, *piped = NULL;
    int32_t ov = 0, *od = NULL;
    char refusal[1024] = "", oracle_msg[512] = "", pipe_refusal[1024] = "";
    hw3_outcome result =
        read_checked(file_path, "file", &m, refusal, sizeof refusal, why, why_size);
    if (result == HW3_FAILED)
        goto done;
    /* The oracle's reader allocates V^2 too, so it only sees headers it can afford. */
    int oracle_accepts =
        !large && oracle_read_hw3(file_path, &ov, &od, oracle_msg, sizeof oracle_msg) == 0;
    if (result == HW3_ACCEPTED && !oracle_accepts) {
        result = failed(why, why_size, "apsp accepted V = %d, E = %d; the oracle refused: %s", v, e,
                        large ? "(V too large to read)" : oracle_msg);
        goto done;
    }
    if (result == HW3_REFUSED && oracle_accepts) {
        result = failed(why, why_size, "apsp refused what the oracle accepts: %s", refusal);
        goto done;
    }
    if (result == HW3_ACCEPTED &&
        (ov != v || check_matrix(m, v, od, "file", why, why_size) == HW3_FAILED)) {
        if (ov != v)
            failed(why, why_size, "the oracle read V = %d, the header says %d", ov, v);
        result = HW3_FAILED;
        goto done;
    }

    /* The same bytes through a pipe, where the reader cannot know the size in advance. */
    int fds[2];
    if (!allocates && size <= 65536 && pipe2(fds, O_CLOEXEC) == 0) {
        int written = fcntl(fds[1], F_SETFL, O_NONBLOCK) == 0 && write_all(fds[1], data, size) == 0;
        close(fds[1]);
        if (written) {
            char pipe_path[64];
            snprintf(pipe_path, sizeof pipe_path, "/proc/self/fd/%d", fds[0]);
            hw3_outcome p = read_checked(pipe_path, "pipe", &piped, pipe_refusal,
                                         sizeof pipe_refusal, why, why_size);
            if (p == HW3_FAILED)
                result = HW3_FAILED;
            else if (p != result)
                result = failed(why, why_size, "the file was %s (%s) but the pipe was %s (%s)",
                                result == HW3_ACCEPTED ? "accepted" : "refused", refusal,
                                p == HW3_ACCEPTED ? "accepted" : "refused", pipe_refusal);
            else if (p == HW3_ACCEPTED &&
                     check_matrix(piped, v, od, "pipe", why, why_size) == HW3_FAILED)
                result = HW3_FAILED;
        }
        close(fds[0]);
        if (result == HW3_FAILED)
            goto done;
    }

    if (result == HW3_ACCEPTED && v <= HW3_CHECK_SOLVE_MAX_V)
        result = solve_and_write(m, v, od, why, why_size);
done:
    apsp_matrix_destroy(m);
    apsp_matrix_destroy(piped);
    free(od);
    return result;
}
