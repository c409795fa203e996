/* Small host facilities shared by the library's files: the clock, the machine's cores and
 * memory, and case-insensitive matching. */
#ifndef APSP_UTIL_H
#define APSP_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Simple loops that the compiler vectorises, cloned per instruction set (SSE2 alone has no
 * packed 32-bit min, nor the blends of a compare-and-select) and picked by the loader for the CPU
 * at hand: the pthread kernels (cpu/), the predecessors' passes and fw_tracked (paths/). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONED_FOR_ISAS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CLONED_FOR_ISAS
#endif

/* A monotonic clock in seconds, for the timings of apsp_report. */
double seconds_now(void);

/* The cores this process may run on (its CPU affinity), at least 1. */
unsigned online_cores(void);

/* What this process may still map under its resource limits (ulimit -v, -d): RLIMIT_AS less its
 * address space now, or RLIMIT_DATA less its private writable memory now (/proc/self/statm),
 * whichever is less; UINT64_MAX when neither limit is set. *limit and *which (unless NULL) get
 * the binding limit in bytes and its name ("the address-space limit (ulimit -v)"). */
uint64_t mapping_room(uint64_t *limit, const char **which);

/* The file descriptors this process may still open: RLIMIT_NOFILE less those open now
 * (/proc/self/fd); *limit gets the limit. UINT64_MAX when it is not set. */
uint64_t descriptor_room(uint64_t *limit);

/* Memory read at random or along long strides (the distance matrix's blocks, Dijkstra's
 * arrays): blocks of 2 MiB and more aligned to and advised for transparent huge pages, so that
 * their cache misses are not also TLB misses; smaller ones on a cache line (64 bytes). free()
 * releases it. NULL when out of memory. */
void *alloc_large(size_t bytes);

/* Whether needle occurs in haystack, ignoring case (an empty needle always does). */
int contains_ignoring_case(const char *haystack, const char *needle);

/* The least common multiple of two positive sizes. */
size_t least_common_multiple(size_t a, size_t b);

#endif
