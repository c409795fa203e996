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

/* Formats a byte count for people in powers of 1024: "5.96 GiB". Returns buf. */
const char *format_bytes(uint64_t bytes, char *buf, size_t size);

#endif
