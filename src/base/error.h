/* Filling an apsp_error: one formatted line, and the status returned alongside it. */
#ifndef APSP_ERROR_H
#define APSP_ERROR_H

#include "apsp.h"

#if defined(__GNUC__)
#define APSP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define APSP_PRINTF(fmt, args)
#endif

/* Records the message in *error (if not NULL) and returns status, so callers can write
 * `return fail(error, APSP_ERR_INPUT, "...", ...);`. */
apsp_status fail(apsp_error *error, apsp_status status, const char *format, ...) APSP_PRINTF(3, 4);

/* The one message of a negative cycle, naming a vertex i with d(i,i) < 0 (tests match its
 * words): records it as APSP_ERR_NEGATIVE_CYCLE and returns that status. */
apsp_status fail_negative_cycle(apsp_error *error, size_t vertex);

/* Prefixes error's message with the input it concerns ("stdin" for "-"), as the readers name
 * their file; returns status. */
apsp_status fail_naming_input(apsp_error *error, apsp_status status, const char *path);

/* Formats a byte count for people in powers of 1024: "5.96 GiB". Returns buf. */
const char *format_bytes(uint64_t bytes, char *buf, size_t size);

#endif
