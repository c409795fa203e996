/* An LD_PRELOAD timer of the calls around apsp's output and transfers (issue 37: where the write's
 * time goes): the wall time spent inside munmap (of more than 64 MiB), fsync, lseek, renameat,
 * fallocate, madvise (MADV_DONTNEED apart), clWaitForEvents, clFinish and pthread_create (apart:
 * those after the first clEnqueueReadBufferRect, when the rows come down), summed over all threads
 * and printed on stderr at exit: LD_PRELOAD=build/tests/bench/libcall-timer.so build/src/apsp -d
 * gpu -v GRAPH OUT Times overlap where threads call at once; the counts say how often. */
#define _GNU_SOURCE /* RTLD_NEXT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>

enum {
    MUNMAP,
    FSYNC,
    LSEEK,
    RENAME,
    FALLOC,
    MADVISE,
    MADVISE_RELEASE,
    WAIT,
    FINISH,
    CREATE,
    CREATE_ROWS,
    CALLS
};
static const char *const call_names[CALLS] = {"munmap (> 64 MiB)",
                                              "fsync",
                                              "lseek",
                                              "renameat",
                                              "fallocate",
                                              "madvise (but MADV_DONTNEED)",
                                              "madvise (MADV_DONTNEED: written pages let go)",
                                              "clWaitForEvents",
                                              "clFinish",
                                              "pthread_create",
                                              "pthread_create (rows coming down)"};
static atomic_long counts[CALLS];
static atomic_llong nanoseconds[CALLS];
static atomic_int rows_coming;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void add(int call, long long start) {
    atomic_fetch_add(&counts[call], 1);
    atomic_fetch_add(&nanoseconds[call], now_ns() - start);
}

/* The next definition of `name` (the real one), looked up once per wrapper. */
#define REAL(name)                                                                                 \
    static __typeof__(name) *real;                                                                 \
    if (!real)                                                                                     \
    real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* The real call `expr` of type `type`, its time added to `call`, returned. */
#define TIMED(call, type, expr)                                                                    \
    do {                                                                                           \
        long long start = now_ns();                                                                \
        type r = expr;                                                                             \
        add(call, start);                                                                          \
        return r;                                                                                  \
    } while (0)

int munmap(void *at, size_t bytes) {
    REAL(munmap);
    long long start = now_ns();
    int r = real(at, bytes);
    if (bytes > (64u << 20))
        add(MUNMAP, start);
    return r;
}

int fsync(int fd) {
    REAL(fsync);
    TIMED(FSYNC, int, real(fd));
}

off_t lseek(int fd, off_t offset, int whence) {
    REAL(lseek);
    TIMED(LSEEK, off_t, real(fd, offset, whence));
}

int renameat(int from_dir, const char *from, int to_dir, const char *to) {
    REAL(renameat);
    TIMED(RENAME, int, real(from_dir, from, to_dir, to));
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
    REAL(fallocate);
    TIMED(FALLOC, int, real(fd, mode, offset, length));
}

int madvise(void *at, size_t bytes, int advice) {
    REAL(madvise);
    TIMED(advice == MADV_DONTNEED ? MADVISE_RELEASE : MADVISE, int, real(at, bytes, advice));
}

cl_int clWaitForEvents(cl_uint count, const cl_event *events) {
    REAL(clWaitForEvents);
    TIMED(WAIT, cl_int, real(count, events));
}

cl_int clFinish(cl_command_queue queue) {
    REAL(clFinish);
    TIMED(FINISH, cl_int, real(queue));
}

cl_int clEnqueueReadBufferRect(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                               const size_t *origin, const size_t *host_origin,
                               const size_t *region, size_t row_pitch, size_t slice_pitch,
                               size_t host_row_pitch, size_t host_slice_pitch, void *host,
                               cl_uint waits, const cl_event *wait, cl_event *event) {
    REAL(clEnqueueReadBufferRect);
    atomic_store(&rows_coming, 1);
    return real(q, buffer, blocking, origin, host_origin, region, row_pitch, slice_pitch,
                host_row_pitch, host_slice_pitch, host, waits, wait, event);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*run)(void *), void *arg) {
    REAL(pthread_create);
    long long start = now_ns();
    int r = real(thread, attr, run, arg);
    add(atomic_load(&rows_coming) ? CREATE_ROWS : CREATE, start);
    return r;
}

__attribute__((destructor)) static void print_times(void) {
    for (int i = 0; i < CALLS; i++)
        if (counts[i])
            fprintf(stderr, "call-timer: %-34s %8ld calls %9.4f s\n", call_names[i],
                    (long)counts[i], nanoseconds[i] / 1e9);
}
