/* sched_getaffinity and CPU_COUNT are GNU extensions. */
#define _GNU_SOURCE
#include "base/util.h"
#include "base/fault.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

/* The soft limit on `resource`, or 0 when there is none. */
static uint64_t soft_limit(int resource) {
    struct rlimit r;
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return 0;
    return (uint64_t)r.rlim_cur;
}

uint64_t mapping_room(uint64_t *limit, const char **which) {
    static const struct {
        int resource;
        int field; /* of /proc/self/statm, in pages: 0 the address space, 5 data and stack */
        const char *name;
    } limits[] = {{RLIMIT_AS, 0, "the address-space limit (ulimit -v)"},
                  {RLIMIT_DATA, 5, "the data-segment limit (ulimit -d)"}};
    unsigned long long pages[7] = {0};
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu %llu %llu %llu %llu %llu %llu", &pages[0], &pages[1], &pages[2],
                   &pages[3], &pages[4], &pages[5], &pages[6]) != 7)
            memset(pages, 0, sizeof pages); /* unknown: counted as none used */
        fclose(f);
    }
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), room = UINT64_MAX;
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        uint64_t cap = soft_limit(limits[i].resource), used = pages[limits[i].field] * page;
        if (!cap || (cap > used ? cap - used : 0) >= room)
            continue;
        room = cap > used ? cap - used : 0;
        if (limit)
            *limit = cap;
        if (which)
            *which = limits[i].name;
    }
    return room;
}

uint64_t descriptor_room(uint64_t *limit) {
    uint64_t cap = soft_limit(RLIMIT_NOFILE), open = 0;
    *limit = cap;
    if (!cap)
        return UINT64_MAX;
    DIR *fds = opendir("/proc/self/fd"); /* its own descriptor is one of those listed */
    if (!fds) /* none left to list them with, or no /proc: the standard three */
        return errno == EMFILE ? 0 : cap > 3 ? cap - 3 : 0;
    for (struct dirent *e; (e = readdir(fds));)
        open += e->d_name[0] != '.';
    closedir(fds);
    return cap > open ? cap - open : 0;
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

enum { HUGE_PAGE = 2 << 20 };

void *alloc_large(size_t bytes) {
#ifdef MADV_HUGEPAGE
    if (bytes >= (size_t)HUGE_PAGE) {
        size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        void *p = rounded >= bytes ? apsp_aligned_alloc(HUGE_PAGE, rounded) : NULL;
        if (p)
            madvise(p, rounded, MADV_HUGEPAGE); /* only advice: refused, the small pages do */
        return p;
    }
#endif
    return bytes <= SIZE_MAX - 63 ? apsp_aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
}
