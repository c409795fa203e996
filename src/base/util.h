/* Small host facilities shared by the library's files: the clock, the machine's cores and
 * memory, and case-insensitive matching. */
#ifndef APSP_UTIL_H
#define APSP_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A monotonic clock in seconds, for the timings of apsp_report. */
double seconds_now(void);

/* The cores this process may run on (its CPU affinity), at least 1. */
unsigned online_cores(void);

/* Physical memory in bytes, or the cgroup's memory.max when that is lower; 0 when the system
 * does not say. */
uint64_t physical_memory(void);

/* Whether needle occurs in haystack, ignoring case (an empty needle always does). */
int contains_ignoring_case(const char *haystack, const char *needle);

/* The least common multiple of two positive sizes. */
size_t least_common_multiple(size_t a, size_t b);

#endif
