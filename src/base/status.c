/* Names of statuses, backends and element types, option defaults, the version; the command's
 * internal exports (byte counts, the memory check). */
#include "apsp.h"
#include "base/memory_room.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *apsp_status_name(apsp_status status) {
    switch (status) {
#define APSP_STATUS_TEXT(name, text, exit_status)                                                  \
    case name:                                                                                     \
        return text;
        APSP_STATUSES(APSP_STATUS_TEXT)
#undef APSP_STATUS_TEXT
    }
    return "unknown status";
}

static const char *const backend_names[] = {
    [APSP_BACKEND_AUTO] = "auto",
    [APSP_BACKEND_CPU] = "cpu",
    [APSP_BACKEND_OPENCL] = "opencl",
};

int apsp_backend_parse(const char *text, apsp_backend_kind *kind) {
    for (size_t i = 0; i < sizeof backend_names / sizeof backend_names[0]; i++) {
        if (strcmp(text, backend_names[i]) == 0) {
            *kind = (apsp_backend_kind)i;
            return 0;
        }
    }
    return -1;
}

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [APSP_INT32] = {"int32", 4},
    [APSP_INT64] = {"int64", 8},
    [APSP_FLOAT32] = {"float32", 4},
    [APSP_FLOAT64] = {"float64", 8},
};

int apsp_dtype_parse(const char *text, apsp_dtype *dtype) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        if (strcmp(text, dtypes[i].name) == 0) {
            *dtype = (apsp_dtype)i;
            return 0;
        }
    }
    return -1;
}

const char *apsp_dtype_name(apsp_dtype dtype) {
    return (size_t)dtype < sizeof dtypes / sizeof dtypes[0] ? dtypes[dtype].name : "unknown";
}

size_t apsp_dtype_size(apsp_dtype dtype) {
    return (size_t)dtype < sizeof dtypes / sizeof dtypes[0] ? dtypes[dtype].size : 0;
}

apsp_status apsp_memory_check(uint64_t bytes, const char *what, apsp_error *error) {
    return memory_room_check(bytes, what ? what : "this", error);
}

int apsp_parse_bytes(const char *text, uint64_t *bytes) {
    char *end;
    if (!text || *text < '0' || *text > '9')
        return -1; /* strtoull would skip blanks and take a sign */
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || text[0] == '-')
        return -1;
    unsigned shift = 0;
    if (*end && strchr("kK", *end))
        shift = 10;
    else if (*end && strchr("mM", *end))
        shift = 20;
    else if (*end && strchr("gG", *end))
        shift = 30;
    if (shift)
        end++;
    if (*end != '\0' || v == 0 || v > (UINT64_MAX >> shift))
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

const char *apsp_backend_name(apsp_backend_kind kind) {
    if ((size_t)kind < sizeof backend_names / sizeof backend_names[0])
        return backend_names[kind];
    return "unknown";
}

void apsp_options_init(apsp_options *options) {
    memset(options, 0, sizeof *options);
    options->backend = APSP_BACKEND_AUTO;
}

const char *apsp_version(void) {
    return APSP_VERSION;
}
