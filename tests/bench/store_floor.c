/* The copy of the rows into the output's populated mapping (src/formats/rows_mapped.c), each
 * way on THREADS threads: by process_vm_writev on this process (ROWS_PER_CALL rows a call, as
 * vm_write_rows), and by stores inside fault_guard_run (a row a memcpy, as store_rows, with a
 * SIGBUS handler that calls apsp_fault_guard_recover as the command's does). The file is
 * fallocated and its mapping populated once (madvise), as output_prepare does beside the
 * rounds; then every rep copies the whole buffer once by each way, the ways interleaved, so that
 * the machine's load falls on all alike. docs/performance.md, "The copy into the mapping by
 * stores":
 *   build/tests/bench/store-floor DIR [MIB] [REPS] [ROW_BYTES]   (defaults 1024, 5, 48000) */
#define _GNU_SOURCE /* O_TMPFILE, fallocate, process_vm_writev */
#include "apsp.h"
#include "formats/rows.h"
#include "output/fault_guard.h"
#include "output/output_map.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { MAX_REPS = 99, WAYS = 4 };

typedef struct share {
    unsigned char *dst;
    const unsigned char *src;
    size_t rows, row_bytes;
    int stores;
    int err;
} share;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void store_share(void *context) {
    const share *s = context;
    for (size_t i = 0; i < s->rows; i++)
        memcpy(s->dst + i * s->row_bytes, s->src + i * s->row_bytes, s->row_bytes);
}

static void *copy_share(void *context) {
    share *s = context;
    if (s->stores) {
        s->err = fault_guard_run(s->dst, s->rows * s->row_bytes, store_share, s);
        return NULL;
    }
    struct iovec rows[ROWS_PER_CALL];
    for (size_t i = 0; i < s->rows && !s->err; i += ROWS_PER_CALL) {
        size_t count = s->rows - i < ROWS_PER_CALL ? s->rows - i : ROWS_PER_CALL;
        for (size_t r = 0; r < count; r++)
            rows[r] = (struct iovec){(void *)(s->src + (i + r) * s->row_bytes), s->row_bytes};
        struct iovec span = {s->dst + i * s->row_bytes, count * s->row_bytes};
        s->err = process_vm_writev(getpid(), rows, count, &span, 1, 0) != (ssize_t)span.iov_len;
    }
    return NULL;
}

/* The whole buffer into the mapping on `threads` threads; the seconds, or -1. */
static double copy_once(unsigned char *map, const unsigned char *src, size_t rows, size_t row_bytes,
                        int threads, int stores) {
    pthread_t tid[2];
    share shares[2];
    double start = now();
    for (int t = 0; t < threads; t++) {
        size_t first = rows * (size_t)t / (size_t)threads;
        size_t last = rows * (size_t)(t + 1) / (size_t)threads;
        shares[t] = (share){
            map + first * row_bytes, src + first * row_bytes, last - first, row_bytes, stores, 0};
        if (t > 0)
            pthread_create(&tid[t], NULL, copy_share, &shares[t]);
    }
    copy_share(&shares[0]);
    int err = shares[0].err;
    for (int t = 1; t < threads; t++) {
        pthread_join(tid[t], NULL);
        err = err || shares[t].err;
    }
    double seconds = now() - start;
    return err ? -1 : seconds;
}

static void on_bus(int sig, siginfo_t *info, void *context) {
    apsp_fault_guard_recover(sig, info, context);
    abort();
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    if (argc < 2)
        return fprintf(stderr, "usage: store-floor DIR [MIB] [REPS] [ROW_BYTES]\n"), 2;
    size_t mib = (size_t)(argc > 2 ? atol(argv[2]) : 1024);
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    size_t row_bytes = (size_t)(argc > 4 ? atol(argv[4]) : 48000);
    size_t rows = row_bytes ? (mib << 20) / row_bytes : 0, bytes = rows * row_bytes;
    unsigned char *src = malloc(bytes ? bytes : 1);
    if (!src || rows == 0 || reps < 1 || reps > MAX_REPS)
        return fprintf(stderr, "no memory, or REPS not 1-%d\n", MAX_REPS), 1;
    memset(src, 7, bytes);
    struct sigaction action = {.sa_sigaction = on_bus, .sa_flags = SA_SIGINFO};
    sigaction(SIGBUS, &action, NULL);
    apsp_fault_guard_enable(1);
    int fd = open(argv[1], O_TMPFILE | O_RDWR, 0600);
    if (fd < 0 || fallocate(fd, 0, 0, (off_t)bytes) != 0)
        return perror(argv[1]), 1;
    unsigned char *map = mmap(NULL, bytes, PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED || populate_pages(map, bytes, POPULATE_MADVISE, NULL) != 0)
        return perror("mmap, populate"), 1;
    static const struct {
        const char *name;
        int threads, stores;
    } ways[WAYS] = {
        {"vmwrite/1", 1, 0}, {"stores/1", 1, 1}, {"vmwrite/2", 2, 0}, {"stores/2", 2, 1}};
    double t[WAYS][MAX_REPS];
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < WAYS; k++) {
            int w = (k + r) % WAYS; /* each way first in turn */
            t[w][r] = copy_once(map, src, rows, row_bytes, ways[w].threads, ways[w].stores);
            if (t[w][r] < 0)
                return fprintf(stderr, "%s failed\n", ways[w].name), 1;
        }
    printf("%s, %zu MiB in rows of %zu bytes, populated; medians (range) of %d, interleaved\n",
           argv[1], bytes >> 20, row_bytes, reps);
    for (int w = 0; w < WAYS; w++) {
        qsort(t[w], (size_t)reps, sizeof(double), by_value);
        double median = t[w][reps / 2];
        printf("  %-10s %.3f s (%.3f-%.3f)  %.2f GB/s\n", ways[w].name, median, t[w][0],
               t[w][reps - 1], 1e-9 * (double)bytes / median);
    }
    munmap(map, bytes);
    close(fd);
    free(src);
    return 0;
}
