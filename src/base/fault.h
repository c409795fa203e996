/* Fault injection, a test-only hook. In a build configured with -Dfault_injection=true,
 * APSP_FAULT=KIND:N in the environment makes the N-th call (counting from 1) of that kind fail:
 *   alloc  host allocations (malloc, calloc, realloc, aligned_alloc, strdup) and thread starts
 *   cl     OpenCL calls that create, build, enqueue or read back
 *   io     file operations whose failure a run survives (the kernel cache)
 * so that a test can walk N = 1, 2, ... over every site a run reaches and check that each
 * failure ends in a clean error. APSP_FAULT_PAUSE=POINT stops the process at a named point
 * instead (fault_pause). In a normal build the hooks compile to nothing. */
#ifndef APSP_FAULT_H
#define APSP_FAULT_H

#include <stdlib.h>
#include <string.h>

typedef enum fault_kind { FAULT_ALLOC, FAULT_CL, FAULT_IO, FAULT_KINDS } fault_kind;

#ifdef APSP_FAULT_INJECTION
/* True when this call is the one APSP_FAULT names. Thread-safe. */
int fault_hit(fault_kind kind);
/* The first time a run reaches the point APSP_FAULT_PAUSE names, stops the whole process
 * (SIGSTOP), so that a test can change its files at that moment, deterministically, and then
 * send SIGCONT. The points:
 *   prepared     the output's mapping is populated, beside the rounds (output_prepare)
 *   first-rows   a solve's first rows are about to go into the output (apsp_row_writer_put)
 *   rows-begun   the first rows of a whole matrix are in the file, the others not yet (pwrite)
 *   stores-begun the first row of a copy by stores is in the output's mapping, the next not
 *                yet: inside the copy's guard (rows_mapped.c, fault_guard.h)
 *   commit       every byte is written: the file is about to be checked and put into place
 *   copy         a file written in place: the first bytes of its copy are over the target
 *                (the first sendfile), the target not yet cut to its length nor synced
 *   cache-dir    a missing kernel cache directory was checked and is about to be made */
void fault_pause(const char *point);
#else
static inline int fault_hit(fault_kind kind) {
    (void)kind;
    return 0;
}
static inline void fault_pause(const char *point) {
    (void)point;
}
#endif

static inline void *apsp_malloc(size_t size) {
    return fault_hit(FAULT_ALLOC) ? NULL : malloc(size);
}

static inline void *apsp_calloc(size_t count, size_t size) {
    return fault_hit(FAULT_ALLOC) ? NULL : calloc(count, size);
}

static inline void *apsp_realloc(void *p, size_t size) {
    return fault_hit(FAULT_ALLOC) ? NULL : realloc(p, size);
}

static inline void *apsp_aligned_alloc(size_t alignment, size_t size) {
    return fault_hit(FAULT_ALLOC) ? NULL : aligned_alloc(alignment, size);
}

static inline char *apsp_strdup(const char *s) {
    return fault_hit(FAULT_ALLOC) ? NULL : strdup(s);
}

#endif
