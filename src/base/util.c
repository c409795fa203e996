/* sched_getaffinity and CPU_COUNT are GNU extensions. */
#define _GNU_SOURCE
#include "base/util.h"

#include <sched.h>
#include <stdio.h>

#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The cores this process may run on (taskset, a container's cpuset), not all online ones. */
unsigned online_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* A cgroup v2 limit on this process's memory (a container's), or 0 when there is none. */
static uint64_t cgroup_memory_limit(void) {
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    unsigned long long limit = 0;
    if (f) {
        if (fscanf(f, "%llu", &limit) != 1) /* "max": no limit */
            limit = 0;
        fclose(f);
    }
    return (uint64_t)limit;
}

uint64_t physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t memory = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
    uint64_t limit = cgroup_memory_limit();
    return limit && (limit < memory || !memory) ? limit : memory;
}

int contains_ignoring_case(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (strncasecmp(haystack, needle, n) == 0)
            return 1;
    return n == 0;
}

size_t least_common_multiple(size_t a, size_t b) {
    size_t x = a, y = b;
    while (y) { /* Euclid: x becomes gcd(a, b) */
        size_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}
