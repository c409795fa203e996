/* How fast rows come down from a device into pinned host memory, the way graph_io.c's
 * layout_store_rows takes them (issue 37: at V = 40000 on an H200 its write_s stayed near 1 s
 * after the copy into the output became stores, 6-7 GB/s for 6.4 GB). Times the same rows three
 * ways, interleaved, in batches of BATCH_MB into two mapped CL_MEM_ALLOC_HOST_PTR buffers:
 *   rect   clEnqueueReadBufferRect, device pitch n cells, host pitch V cells (what apsp does)
 *   whole  clEnqueueReadBuffer of the padded rows, pitch n on both sides (contiguous)
 *   rowby  one clEnqueueReadBuffer per row (what a rect read may become inside a driver)
 * and prints GB/s of the V-cell rows for each, the median of REPS:
 *   build/tests/bench/download-probe [gpu|cpu] [V] [BATCH_MB] [REPS]   (gpu 40000 64 3)
 * int32 cells, n = V rounded up to 128 (the padded pitch). Then how fast the host reads a pinned
 * batch against ordinary memory (host_copies). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WAYS = 3, MAX_REPS = 15 };
static const char *const way_names[WAYS] = {"rect", "whole", "rowby"};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Rows [row, row + count) into host buffer `host` the way `way` says; returns the last event. */
static cl_int queue_rows(cl_command_queue q, cl_mem device, void *host, int way, size_t row,
                         size_t count, size_t v, size_t n, cl_event *done) {
    const size_t cell = sizeof(cl_int);
    if (way == 0) {
        size_t origin[3] = {0, row, 0}, host_origin[3] = {0, 0, 0},
               region[3] = {v * cell, count, 1};
        return clEnqueueReadBufferRect(q, device, CL_FALSE, origin, host_origin, region, n * cell,
                                       0, v * cell, 0, host, 0, NULL, done);
    }
    if (way == 1)
        return clEnqueueReadBuffer(q, device, CL_FALSE, row * n * cell, count * n * cell, host, 0,
                                   NULL, done);
    cl_int err = CL_SUCCESS;
    for (size_t r = 0; r < count && err == CL_SUCCESS; r++)
        err =
            clEnqueueReadBuffer(q, device, CL_FALSE, (row + r) * n * cell, v * cell,
                                (char *)host + r * v * cell, 0, NULL, r + 1 == count ? done : NULL);
    return err;
}

/* One pass over all V rows by `way`, double-buffered as apsp does; seconds, or -1. */
static double one_pass(cl_command_queue q, cl_mem device, void *host[2], int way, size_t v,
                       size_t n, size_t batch_rows) {
    cl_event ready[2] = {NULL, NULL};
    double start = now_s();
    int k = 0;
    for (size_t row = 0; row < v; row += batch_rows, k ^= 1) {
        size_t count = v - row < batch_rows ? v - row : batch_rows;
        if (ready[k]) /* the batch this buffer held was handed on: wait before reusing it */
            clWaitForEvents(1, &ready[k]), clReleaseEvent(ready[k]), ready[k] = NULL;
        if (queue_rows(q, device, host[k], way, row, count, v, n, &ready[k]) != CL_SUCCESS)
            return -1;
        clFlush(q);
    }
    clFinish(q);
    for (int i = 0; i < 2; i++)
        if (ready[i])
            clReleaseEvent(ready[i]);
    return now_s() - start;
}

/* The host's side of a batch: memcpy from a source buffer (pinned, or ordinary memory) into
 * ordinary populated memory on `threads` threads, the way apsp copies a batch into its output's
 * mapping. Whether the pinned buffer reads as fast as ordinary memory (a driver may map it
 * write-combined or uncached) decides where apsp's write time goes. */
typedef struct copy_part {
    const char *from;
    char *to;
    size_t bytes;
} copy_part;

static void *copy_one(void *arg) {
    copy_part *c = arg;
    memcpy(c->to, c->from, c->bytes);
    return NULL;
}

static double copy_rate(const char *from, char *to, size_t bytes, unsigned threads, int reps) {
    enum { MAX_THREADS = 64 };
    pthread_t ids[MAX_THREADS];
    copy_part parts[MAX_THREADS];
    threads = threads > MAX_THREADS ? MAX_THREADS : threads;
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double start = now_s();
        for (unsigned t = 0; t < threads; t++) {
            size_t a = bytes * t / threads, b = bytes * (t + 1) / threads;
            parts[t] = (copy_part){from + a, to + a, b - a};
            pthread_create(&ids[t], NULL, copy_one, &parts[t]);
        }
        for (unsigned t = 0; t < threads; t++)
            pthread_join(ids[t], NULL);
        double rate = bytes / (now_s() - start) / 1e9;
        best = rate > best ? rate : best;
    }
    return best;
}

static void host_copies(const void *pinned, size_t bytes) {
    char *plain = malloc(bytes), *to = malloc(bytes);
    if (!plain || !to)
        return;
    memset(plain, 1, bytes), memset(to, 2, bytes);
    static const unsigned thread_counts[] = {1, 4, 16};
    for (size_t i = 0; i < sizeof thread_counts / sizeof *thread_counts; i++)
        printf("host copy, %2u threads: from the pinned batch %6.2f GB/s, from malloc %6.2f GB/s\n",
               thread_counts[i], copy_rate(pinned, to, bytes, thread_counts[i], 5),
               copy_rate(plain, to, bytes, thread_counts[i], 5));
    free(plain), free(to);
}

int main(int argc, char **argv) {
    cl_device_type type =
        argc > 1 && strcmp(argv[1], "cpu") == 0 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
    size_t v = argc > 2 ? strtoul(argv[2], NULL, 10) : 40000;
    size_t batch_bytes = (argc > 3 ? strtoul(argv[3], NULL, 10) : 64) << 20;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
    size_t n = (v + 127) / 128 * 128, cell = sizeof(cl_int);
    size_t batch_rows = batch_bytes / (n * cell) ? batch_bytes / (n * cell) : 1;

    cl_platform_id platforms[16];
    cl_uint count = 0;
    cl_device_id dev = NULL;
    clGetPlatformIDs(16, platforms, &count);
    for (cl_uint p = 0; p < count && !dev; p++)
        if (clGetDeviceIDs(platforms[p], type, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) {
        fprintf(stderr, "download-probe: no OpenCL device of that type\n");
        return 1;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_mem device = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * n * cell, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "download-probe: clCreateBuffer of %zu bytes: %d\n", n * n * cell, err);
        return 1;
    }
    cl_int zero = 0;
    clEnqueueFillBuffer(q, device, &zero, sizeof zero, 0, n * n * cell, 0, NULL, NULL);
    cl_mem pinned[2];
    void *host[2];
    for (int k = 0; k < 2; k++) {
        pinned[k] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                   batch_rows * n * cell, NULL, &err);
        host[k] = clEnqueueMapBuffer(q, pinned[k], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     batch_rows * n * cell, 0, NULL, NULL, &err);
    }
    clFinish(q);
    double seconds[WAYS][MAX_REPS];
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < WAYS; i++) {
            int way = (i + r) % WAYS; /* each way first in turn */
            seconds[way][r] = one_pass(q, device, host, way, v, n, batch_rows);
        }
    printf("download-probe: V = %zu, n = %zu, %zu rows a batch (%zu MiB), %d reps\n", v, n,
           batch_rows, batch_rows * n * cell >> 20, reps);
    for (int way = 0; way < WAYS; way++) {
        qsort(seconds[way], (size_t)reps, sizeof(double), compare_doubles);
        double median = seconds[way][reps / 2];
        printf("%-6s %8.3f s  %6.2f GB/s of rows\n", way_names[way], median,
               median > 0 ? (double)v * v * cell / median / 1e9 : 0.0);
    }
    host_copies(host[0], batch_rows * v * cell);
    for (int k = 0; k < 2; k++) {
        clEnqueueUnmapMemObject(q, pinned[k], host[k], 0, NULL, NULL);
        clReleaseMemObject(pinned[k]);
    }
    clFinish(q);
    clReleaseMemObject(device);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
