/* The course reports' CPU scheme, as a yardstick for the benchmark (tests/bench/bench_cpu.py).
 *
 *   course_cpu THREADS INPUT OUTPUT
 *
 * Plain Floyd-Warshall on the V x V matrix: for every k, the rows are split evenly over the
 * threads, each thread relaxes its rows through k, and all threads meet at a barrier before
 * k + 1. Every k step streams the whole matrix through the caches, which is what the blocked
 * scheme of apsp avoids. Reads and writes the hw3 format (little-endian int32 V, E, E triples
 * src dst w; output V*V int32, 1073741823 for unreachable pairs) and prints the seconds spent
 * computing on stdout. Built with the project's flags and no -march, like apsp's default build. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INF 1073741823

typedef struct shared {
    int32_t *d;
    size_t n;
    unsigned threads;
    pthread_barrier_t barrier;
} shared;

typedef struct worker {
    shared *s;
    unsigned id;
} worker;

/* Row i through vertex k: d(i,j) = min(d(i,j), d(i,k) + d(k,j)). Weights are >= 0 and
 * INF = 2^30 - 1, so the sum cannot overflow. Row k itself never changes at step k (d(k,k) = 0),
 * so the caller skips it and the two rows never overlap. */
static void relax_row(int32_t *restrict row, const int32_t *restrict row_k, int32_t dik, size_t n) {
    for (size_t j = 0; j < n; j++) {
        int32_t via = dik + row_k[j];
        row[j] = via < row[j] ? via : row[j];
    }
}

static void *run_worker(void *arg) {
    const worker *w = arg;
    shared *s = w->s;
    size_t n = s->n;
    size_t begin = n * w->id / s->threads, end = n * (w->id + 1) / s->threads;
    for (size_t k = 0; k < n; k++) {
        const int32_t *row_k = s->d + k * n;
        for (size_t i = begin; i < end; i++) {
            if (i == k)
                continue;
            int32_t *row = s->d + i * n;
            relax_row(row, row_k, row[k], n);
        }
        pthread_barrier_wait(&s->barrier);
    }
    return NULL;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Little-endian int32 values from f; 0 on success. */
static int read_ints(FILE *f, int32_t *out, size_t count) {
    unsigned char buf[4];
    for (size_t i = 0; i < count; i++) {
        if (fread(buf, 1, 4, f) != 4)
            return -1;
        out[i] = (int32_t)((uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
                           (uint32_t)buf[3] << 24);
    }
    return 0;
}

static int32_t *read_graph(const char *path, size_t *n_out) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "course_cpu: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    int32_t header[2];
    if (read_ints(f, header, 2) != 0 || header[0] <= 0 || header[1] < 0) {
        fprintf(stderr, "course_cpu: %s: bad header\n", path);
        fclose(f);
        return NULL;
    }
    size_t n = (size_t)header[0];
    int32_t *d = malloc(n * n * sizeof *d);
    if (!d) {
        fprintf(stderr, "course_cpu: out of memory for V = %zu\n", n);
        fclose(f);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = i == j ? 0 : INF;
    for (int32_t e = 0; e < header[1]; e++) {
        int32_t t[3];
        if (read_ints(f, t, 3) != 0 || t[0] < 0 || (size_t)t[0] >= n || t[1] < 0 ||
            (size_t)t[1] >= n || t[2] < 0 || t[2] > 1000) {
            fprintf(stderr, "course_cpu: %s: edge %d is missing or out of range\n", path, e);
            free(d);
            fclose(f);
            return NULL;
        }
        int32_t *cell = &d[(size_t)t[0] * n + (size_t)t[1]];
        if (t[0] != t[1] && t[2] < *cell)
            *cell = t[2];
    }
    fclose(f);
    *n_out = n;
    return d;
}

static int write_graph(const char *path, const int32_t *d, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "course_cpu: %s: %s\n", path, strerror(errno));
        return -1;
    }
    unsigned char *buf = malloc(4 * n);
    int ok = buf != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            uint32_t v = (uint32_t)d[i * n + j];
            for (int b = 0; b < 4; b++)
                buf[4 * j + (size_t)b] = (unsigned char)(v >> (8 * b));
        }
        ok = fwrite(buf, 4, n, f) == n;
    }
    free(buf);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "course_cpu: %s: write failed\n", path);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    char *end;
    long threads = argc == 4 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 4 || *end != '\0' || threads < 1 || threads > 1024) {
        fprintf(stderr, "usage: course_cpu THREADS INPUT OUTPUT\n");
        return 2;
    }
    shared s = {.threads = (unsigned)threads};
    s.d = read_graph(argv[2], &s.n);
    if (!s.d)
        return 3;
    worker *workers = calloc(s.threads, sizeof *workers);
    pthread_t *ids = calloc(s.threads, sizeof *ids);
    if (!workers || !ids) {
        fprintf(stderr, "course_cpu: out of memory\n");
        return 5;
    }
    pthread_barrier_init(&s.barrier, NULL, s.threads);
    double start = seconds_now();
    for (unsigned t = 0; t < s.threads; t++) {
        workers[t] = (worker){.s = &s, .id = t};
        if (t > 0 && pthread_create(&ids[t], NULL, run_worker, &workers[t]) != 0) {
            fprintf(stderr, "course_cpu: cannot start thread %u\n", t);
            return 1;
        }
    }
    run_worker(&workers[0]);
    for (unsigned t = 1; t < s.threads; t++)
        pthread_join(ids[t], NULL);
    double seconds = seconds_now() - start;
    pthread_barrier_destroy(&s.barrier);
    double relax = (double)s.n * (double)s.n * (double)s.n;
    printf("course_cpu: %u threads, V = %zu, compute %.3f s (%.2f G relax/s)\n", s.threads, s.n,
           seconds, relax / seconds / 1e9);
    int rc = write_graph(argv[3], s.d, s.n) == 0 ? 0 : 4;
    free(s.d);
    free(workers);
    free(ids);
    return rc;
}
