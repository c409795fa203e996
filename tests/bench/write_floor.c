/* The write floor: how fast this machine can put BYTES into a new file in DIR, by the plainest
 * means there are, so that apsp's own write time has something to be measured against
 * (docs/performance.md, "end to end"). Each method writes a file of BYTES (already in memory,
 * as apsp's result is), fsyncs it as apsp does before its rename, and removes it:
 *
 *     write     one thread, write() of 8 MiB pieces
 *     pwrite/T  T threads, each pwrite()s its own contiguous share
 *     mmap/T    ftruncate, mmap, T threads memcpy their shares, munmap
 *     vmwrite/T the same mapping, filled by process_vm_writev on this process (apsp's mapped
 *               writer: a page lost to a truncation is EFAULT there, not SIGBUS)
 *
 * usage: write_floor DIR BYTES [RUNS]   (BYTES may end in K, M or G: powers of 1024)
 * Prints one line per method with the median seconds and GB/s of RUNS runs (default 3), then
 * "floor S" with the best median. No thresholds. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { PIECE = 8 << 20, MAX_RUNS = 15 };

typedef struct job {
    int fd;
    unsigned char *map; /* mmap methods: the file's pages; else NULL */
    int vm_write;       /* process_vm_writev into `map` rather than memcpy */
    const unsigned char *data;
    size_t begin, end;
    int failed;
} job;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *write_share(void *arg) {
    job *j = arg;
    if (j->map && j->vm_write) {
        for (size_t at = j->begin; at < j->end && !j->failed;) {
            size_t n = j->end - at < PIECE ? j->end - at : PIECE;
            struct iovec from = {(void *)(j->data + at), n}, to = {j->map + at, n};
            ssize_t w = process_vm_writev(getpid(), &from, 1, &to, 1, 0);
            j->failed = w <= 0;
            at += w > 0 ? (size_t)w : 0;
        }
        return NULL;
    }
    if (j->map) {
        memcpy(j->map + j->begin, j->data + j->begin, j->end - j->begin);
        return NULL;
    }
    for (size_t at = j->begin; at < j->end && !j->failed;) {
        size_t n = j->end - at < PIECE ? j->end - at : PIECE;
        ssize_t w = pwrite(j->fd, j->data + at, n, (off_t)at);
        j->failed = w <= 0;
        at += w > 0 ? (size_t)w : 0;
    }
    return NULL;
}

/* Writes `bytes` of `data` into a new file in `dir` with `threads` threads (0: one thread of
 * plain write() calls), by mmap when `map` (2: filled by process_vm_writev); returns the
 * seconds, or -1. */
static double write_once(const char *dir, const unsigned char *data, size_t bytes, int threads,
                         int map) {
    char path[4096];
    snprintf(path, sizeof path, "%s/.write-floor-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    double start = now();
    int ok = 1;
    unsigned char *pages = NULL;
    if (map) {
        ok = ftruncate(fd, (off_t)bytes) == 0 &&
             (pages = mmap(NULL, bytes, PROT_WRITE, MAP_SHARED, fd, 0)) != MAP_FAILED;
    }
    if (ok && threads == 0) {
        for (size_t at = 0; at < bytes && ok;) {
            ssize_t w = write(fd, data + at, bytes - at < PIECE ? bytes - at : PIECE);
            ok = w > 0;
            at += ok ? (size_t)w : 0;
        }
    } else if (ok) {
        pthread_t tid[64];
        job jobs[64];
        for (int t = 0; t < threads; t++) {
            jobs[t] = (job){fd,
                            map ? pages : NULL,
                            map == 2,
                            data,
                            bytes * (size_t)t / (size_t)threads,
                            bytes * (size_t)(t + 1) / (size_t)threads,
                            0};
            pthread_create(&tid[t], NULL, write_share, &jobs[t]);
        }
        for (int t = 0; t < threads; t++) {
            pthread_join(tid[t], NULL);
            ok = ok && !jobs[t].failed;
        }
    }
    if (map && pages && pages != MAP_FAILED)
        ok = munmap(pages, bytes) == 0 && ok;
    ok = fsync(fd) == 0 && ok;
    double seconds = now() - start;
    close(fd);
    unlink(path);
    return ok ? seconds : -1;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t parse_bytes(const char *text) {
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    return (size_t)v << shift;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: write_floor DIR BYTES [RUNS]\n");
        return 2;
    }
    size_t bytes = parse_bytes(argv[2]);
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    if (bytes == 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "write_floor: BYTES must be positive and RUNS 1-%d\n", MAX_RUNS);
        return 2;
    }
    unsigned char *data = malloc(bytes);
    if (!data) {
        fprintf(stderr, "write_floor: cannot hold %zu bytes\n", bytes);
        return 1;
    }
    memset(data, 0x5a, bytes); /* touched, as a result in memory is */
    static const struct {
        const char *name;
        int threads, map;
    } methods[] = {{"write", 0, 0},      {"pwrite/2", 2, 0},   {"pwrite/4", 4, 0},
                   {"pwrite/8", 8, 0},   {"pwrite/16", 16, 0}, {"mmap/1", 1, 1},
                   {"mmap/4", 4, 1},     {"mmap/8", 8, 1},     {"mmap/16", 16, 1},
                   {"vmwrite/1", 1, 2},  {"vmwrite/4", 4, 2},  {"vmwrite/8", 8, 2},
                   {"vmwrite/16", 16, 2}};
    double best = -1;
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
        double times[MAX_RUNS];
        for (int r = 0; r < runs; r++)
            times[r] = write_once(argv[1], data, bytes, methods[m].threads, methods[m].map);
        qsort(times, (size_t)runs, sizeof times[0], by_value);
        double median = times[runs / 2];
        if (times[0] < 0) {
            printf("%-10s failed: %s\n", methods[m].name, strerror(errno));
            continue;
        }
        printf("%-10s %8.3f s %7.2f GB/s\n", methods[m].name, median, (double)bytes / median / 1e9);
        if (best < 0 || median < best)
            best = median;
    }
    printf("floor %.3f s\n", best);
    free(data);
    return best < 0;
}
