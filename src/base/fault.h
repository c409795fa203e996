/* Fault injection, a test-only hook. In a build configured with -Dfault_injection=true,
 * APSP_FAULT in the environment makes one call of a kind fail:
 *   alloc  host allocations (malloc, calloc, realloc, aligned_alloc, strdup) and thread starts
 *   cl     OpenCL calls that create, build, enqueue or read back
 *   io     file operations whose failure a run survives (the kernel cache)
 * APSP_FAULT=KIND:N names the N-th call of that kind (counting from 1) in the run;
 * APSP_FAULT=KIND@SITE#K the K-th call made at one place in the source, SITE being "file:line"
 * as the run with APSP_FAULT_COUNT=1 lists them (fault.c), which stays the same call whatever
 * order the threads make their calls in. A test walks over every site a run reaches and checks
 * that each failure ends in a clean error. APSP_FAULT_PAUSE=POINT stops the process at a named
 * point instead (fault_pause). In a normal build the hooks compile to nothing. */
#ifndef APSP_FAULT_H
#define APSP_FAULT_H

#include <stdlib.h>
#include <string.h>

typedef enum fault_kind { FAULT_ALLOC, FAULT_CL, FAULT_IO, FAULT_KINDS } fault_kind;

#ifdef APSP_FAULT_INJECTION
/* True when this call, made at `site`, is the one APSP_FAULT names. Thread-safe. */
int fault_hit_at(fault_kind kind, const char *site);
#define FAULT_SITE_TEXT(line) #line
#define FAULT_SITE(line) FAULT_SITE_TEXT(line)
/* (a macro, so that each call counts at its own file and line) */
#define fault_hit(kind) fault_hit_at((kind), __FILE__ ":" FAULT_SITE(__LINE__))
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

/* The allocations, each failing where APSP_FAULT names its site: macros, not functions, so that
 * __FILE__ and __LINE__ are the caller's. */
#define apsp_malloc(size) (fault_hit(FAULT_ALLOC) ? NULL : malloc(size))
#define apsp_calloc(count, size) (fault_hit(FAULT_ALLOC) ? NULL : calloc((count), (size)))
#define apsp_realloc(p, size) (fault_hit(FAULT_ALLOC) ? NULL : realloc((p), (size)))
#define apsp_aligned_alloc(alignment, size)                                                        \
    (fault_hit(FAULT_ALLOC) ? NULL : aligned_alloc((alignment), (size)))
#define apsp_strdup(s) (fault_hit(FAULT_ALLOC) ? NULL : strdup(s))

#endif
