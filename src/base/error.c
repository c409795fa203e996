#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

apsp_status fail_negative_cycle(apsp_error *error, size_t vertex) {
    return fail(error, APSP_ERR_NEGATIVE_CYCLE,
                "the graph has a negative cycle: vertex %zu reaches itself by a path of negative "
                "total weight, so shortest distances do not exist",
                vertex);
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

apsp_status fail_naming_input(apsp_error *error, apsp_status status, const char *path) {
    if (!error)
        return status;
    char detail[sizeof error->message];
    memcpy(detail, error->message, sizeof detail);
    return fail(error, status, "%s: %s", strcmp(path, "-") == 0 ? "stdin" : path, detail);
}
