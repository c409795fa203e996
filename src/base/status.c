/* Names of statuses, option defaults, the version; the command's internal exports (byte counts,
 * the memory check). The names of backends, element types and methods are in names.c. */
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

void apsp_options_init(apsp_options *options) {
    memset(options, 0, sizeof *options);
    options->backend = APSP_BACKEND_AUTO;
}

const char *apsp_version(void) {
    return APSP_VERSION;
}
