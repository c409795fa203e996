/* An LD_PRELOAD library for tests/reader/test_threads.py: counts the threads a process starts with
 * pthread_create and, at exit, writes the count to the file APSP_TEST_THREAD_COUNT names. A
 * count, not a peak of threads alive at once, so that it does not depend on timing. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static create_fn next; /* the real one, found before any thread exists */
static atomic_int started;

__attribute__((constructor)) static void find_next(void) {
    *(void **)&next = dlsym(RTLD_NEXT, "pthread_create"); /* (POSIX's way to a function) */
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg) {
    int result = next ? next(thread, attr, start, arg) : -1;
    if (result == 0)
        atomic_fetch_add(&started, 1);
    return result;
}

__attribute__((destructor)) static void write_count(void) {
    const char *path = getenv("APSP_TEST_THREAD_COUNT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%d\n", atomic_load(&started));
        fclose(f);
    }
}
