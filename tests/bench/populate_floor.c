/* The output's pages made ready beside the rounds (src/output/output_map.c), each way timed on
 * one file system: fallocate, the mapping populated by madvise(MADV_POPULATE_WRITE) or by
 * touching each page (populate_pages), then one thread's copy of the rows into it, beside the
 * same copy into a mapping nobody populated. docs/performance.md, "Output pages prepared beside
 * the rounds":
 *   build/tests/bench/populate-floor DIR [MIB] [REPS]     (DIR: /dev/shm, a directory on ext4) */
#define _GNU_SOURCE /* O_TMPFILE, fallocate */
#include "output/output_map.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One round: fallocate, populate (or not), copy; the three times into t. Returns 0 or -1. */
static int one(const char *dir, size_t bytes, int method, const unsigned char *rows, double t[3]) {
    int fd = open(dir, O_TMPFILE | O_RDWR, 0600);
    if (fd < 0)
        return perror(dir), -1;
    double a = now();
    if (fallocate(fd, 0, 0, (off_t)bytes) != 0)
        return perror("fallocate"), close(fd), -1;
    double b = now();
    unsigned char *map = mmap(NULL, bytes, PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return perror("mmap"), close(fd), -1;
    int err = method < 0 ? 0 : populate_pages(map, bytes, (populate_method)method, NULL);
    double c = now();
    memcpy(map, rows, bytes);
    double d = now();
    munmap(map, bytes);
    close(fd);
    t[0] = b - a, t[1] = c - b, t[2] = d - c;
    return err ? (fprintf(stderr, "populate: %s\n", strerror(err)), -1) : 0;
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    if (argc < 2)
        return fprintf(stderr, "usage: populate-floor DIR [MIB] [REPS]\n"), 2;
    size_t bytes = (size_t)(argc > 2 ? atol(argv[2]) : 1024) << 20;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    unsigned char *rows = malloc(bytes);
    if (!rows || reps < 1 || reps > 99)
        return fprintf(stderr, "no memory, or REPS not 1-99\n"), 1;
    memset(rows, 7, bytes);
    const char *names[] = {"none (copy faults)", "madvise", "touch"};
    const int methods[] = {-1, POPULATE_MADVISE, POPULATE_TOUCH};
    printf("%s, %zu MiB, medians of %d: fallocate / populate / copy seconds\n", argv[1],
           bytes >> 20, reps);
    for (int m = 0; m < 3; m++) {
        double t[3][99];
        for (int r = 0; r < reps; r++) {
            double one_t[3];
            if (one(argv[1], bytes, methods[m], rows, one_t) != 0)
                return 1;
            for (int k = 0; k < 3; k++)
                t[k][r] = one_t[k];
        }
        for (int k = 0; k < 3; k++)
            qsort(t[k], (size_t)reps, sizeof(double), by_value);
        printf("  %-20s %.3f / %.3f / %.3f  (populate %.2f GB/s, copy %.2f GB/s)\n", names[m],
               t[0][reps / 2], t[1][reps / 2], t[2][reps / 2],
               t[1][reps / 2] > 0 ? 1e-9 * (double)bytes / t[1][reps / 2] : 0.0,
               1e-9 * (double)bytes / t[2][reps / 2]);
    }
    free(rows);
    return 0;
}
