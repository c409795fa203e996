#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>

apsp_status fail(apsp_error *error, apsp_status status, const char *format, ...) {
    if (error) {
        va_list args;
        va_start(args, format);
        vsnprintf(error->message, sizeof error->message, format, args);
        va_end(args);
        error->status = status;
    }
    return status;
}

const char *format_bytes(uint64_t bytes, char *buf, size_t size) {
    /* Powers of 1024, as --max-buffer-bytes and --list-devices count. */
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = (double)bytes;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    if (unit == 0)
        snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
    else
        snprintf(buf, size, "%.2f %s", value, units[unit]);
    return buf;
}
