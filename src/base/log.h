/* Diagnostics through the caller's log function (apsp_options.log): the library never prints. */
#ifndef APSP_LOG_H
#define APSP_LOG_H

#include "apsp.h"
#include "base/error.h"

/* Formats the message and passes it to options->log; nothing when there is none. */
void log_message(const apsp_options *options, apsp_log_level level, const char *format, ...)
    APSP_PRINTF(3, 4);

#endif
