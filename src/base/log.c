#include "base/log.h"
#include "base/fault.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void log_message(const apsp_options *options, apsp_log_level level, const char *format, ...) {
    if (!options->log)
        return;
    va_list args;
    va_start(args, format);
    int size = vsnprintf(NULL, 0, format, args);
    va_end(args);
    /* A build log can be long; without memory for it, the first line still goes out. */
    char line[256];
    char *text = size >= 0 ? apsp_malloc((size_t)size + 1) : NULL;
    va_start(args, format);
    vsnprintf(text ? text : line, text ? (size_t)size + 1 : sizeof line, format, args);
    va_end(args);
    options->log(options->log_context, level, text ? text : line);
    free(text);
}
