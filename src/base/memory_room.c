/* How much host memory this process can still get (memory_room.h). */
#include "base/memory_room.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* v1's "no limit" is the largest page count in bytes (9223372036854771712); anything from 2^62
 * up is taken as none, as no machine has that much. */
#define NO_LIMIT_FROM ((uint64_t)1 << 62)

/* The files one cgroup version keeps its memory figures in, under the cgroup root. */
typedef struct cgroup_files {
    int version;
    const char *under; /* the controller's hierarchy below the cgroup root */
    const char *limit, *usage;
} cgroup_files;

static const cgroup_files CGROUP_V2 = {2, "", "memory.max", "memory.current"};
static const cgroup_files CGROUP_V1 = {1, "/memory", "memory.limit_in_bytes",
                                       "memory.usage_in_bytes"};

/* DIR/NAME's text, cut to size - 1 bytes, into buf: 0, or -1 when it cannot be read. */
static int read_text(const char *dir, const char *name, char *buf, size_t size) {
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t r = read(fd, buf + got, size - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    return got > 0 ? 0 : -1;
}

/* A decimal number at *text, past leading blanks; *text moves past it. -1 without digits or on
 * overflow. */
static int parse_decimal(const char **text, uint64_t *value) {
    const char *p = *text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        uint64_t digit = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return -1;
        v = v * 10 + digit;
    }
    *value = v;
    *text = p;
    return 0;
}

/* Whether only blanks and line ends are left. */
static int only_space(const char *p) {
    return p[strspn(p, " \t\r\n")] == '\0';
}

/* The line after `line`, or NULL after the last. */
static const char *next_line(const char *line) {
    const char *end = strchr(line, '\n');
    return end ? end + 1 : NULL;
}

/* The value of the line "KEY VALUE" (or "KEY: VALUE") of a key-value file, or NULL. */
static const char *value_of(const char *text, const char *key) {
    size_t n = strlen(key);
    for (const char *line = text; line && *line; line = next_line(line))
        if (strncmp(line, key, n) == 0 && (line[n] == ' ' || line[n] == '\t' || line[n] == ':'))
            return line + n + (line[n] == ':');
    return NULL;
}

int meminfo_available(const char *text, uint64_t *bytes) {
    const char *p = value_of(text, "MemAvailable");
    uint64_t kib;
    if (!p || parse_decimal(&p, &kib) != 0 || kib > UINT64_MAX / 1024)
        return -1;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "kB", 2) != 0) /* the only unit meminfo has ever used */
        return -1;
    *bytes = kib * 1024;
    return 0;
}

/* Whether the comma-separated list [list, end) holds `name`. */
static int list_has(const char *list, const char *end, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        if ((size_t)(stop - p) == n && strncmp(p, name, n) == 0)
            return 1;
        p = stop + 1;
    }
    return 0;
}

int cgroup_path_of(const char *text, int version, char *path, size_t size) {
    for (const char *line = text; line && *line; line = next_line(line)) {
        const char *end = strchr(line, '\n');
        end = end ? end : line + strlen(line);
        const char *first = memchr(line, ':', (size_t)(end - line));
        const char *second = first ? memchr(first + 1, ':', (size_t)(end - first - 1)) : NULL;
        if (!second || second[1] != '/')
            continue;
        int wanted = version == 2 ? first - line == 1 && line[0] == '0' && second == first + 1
                                  : list_has(first + 1, second, "memory");
        size_t length = (size_t)(end - second - 1);
        if (!wanted || length >= size)
            continue;
        memcpy(path, second + 1, length);
        path[length] = '\0';
        return 0;
    }
    return -1;
}

int cgroup_limit_parse(const char *text, uint64_t *bytes) {
    const char *p = text + strspn(text, " \t");
    if (strncmp(p, "max", 3) == 0 && only_space(p + 3)) {
        *bytes = UINT64_MAX;
        return 0;
    }
    if (parse_decimal(&p, bytes) != 0 || !only_space(p))
        return -1;
    if (*bytes >= NO_LIMIT_FROM)
        *bytes = UINT64_MAX;
    return 0;
}

int cgroup_number_parse(const char *text, uint64_t *value) {
    const char *p = text;
    return parse_decimal(&p, value) == 0 && only_space(p) ? 0 : -1;
}

uint64_t cgroup_stat_cache(const char *text, int version) {
    const char *keys[2] = {"active_file", "inactive_file"};
    if (version == 1) {
        keys[0] = "total_active_file";
        keys[1] = "total_inactive_file";
    }
    uint64_t cache = 0;
    for (int i = 0; i < 2; i++) {
        const char *p = value_of(text, keys[i]);
        uint64_t bytes;
        if (p && parse_decimal(&p, &bytes) == 0 && bytes <= UINT64_MAX - cache)
            cache += bytes;
    }
    return cache;
}

/* What a cgroup holds less its page cache: 0 when its usage cannot be read. */
static uint64_t cgroup_held(const char *dir, const cgroup_files *f) {
    char text[8192];
    uint64_t usage;
    if (read_text(dir, f->usage, text, sizeof text) != 0 || cgroup_number_parse(text, &usage) != 0)
        return 0;
    uint64_t cache = read_text(dir, "memory.stat", text, sizeof text) == 0
                         ? cgroup_stat_cache(text, f->version)
                         : 0;
    return usage > cache ? usage - cache : 0;
}

/* A cgroup path into `to`, cut short if longer. */
static void copy_path(char *to, size_t size, const char *path) {
    size_t length = strnlen(path, size - 1);
    memcpy(to, path, length);
    to[length] = '\0';
}

/* The cgroup at `path` (under the hierarchy of `f`): its limit less what it holds, kept when
 * tighter than the room so far. */
static void consider_cgroup(const char *cgroups, const cgroup_files *f, const char *path,
                            memory_room *room) {
    char dir[PATH_MAX], text[256];
    uint64_t limit;
    int n = snprintf(dir, sizeof dir, "%s%s%s", cgroups, f->under, strcmp(path, "/") ? path : "");
    if (n < 0 || (size_t)n >= sizeof dir || read_text(dir, f->limit, text, sizeof text) != 0 ||
        cgroup_limit_parse(text, &limit) != 0 || limit == UINT64_MAX)
        return;
    if (!room->least_limit || limit < room->least_limit) {
        room->least_limit = limit;
        room->least_limit_file = f->limit;
        copy_path(room->least_cgroup, sizeof room->least_cgroup, path);
    }
    uint64_t held = cgroup_held(dir, f), left = limit > held ? limit - held : 0;
    if (left >= room->available)
        return;
    room->available = left;
    room->limit = limit;
    room->held = held;
    room->limit_file = f->limit;
    copy_path(room->cgroup, sizeof room->cgroup, path);
}

/* This process's cgroup of the version of `f` and each one above it. */
static void walk_cgroups(const char *proc, const char *cgroups, const cgroup_files *f,
                         memory_room *room) {
    char text[4096], path[PATH_MAX];
    if (read_text(proc, "self/cgroup", text, sizeof text) != 0 ||
        cgroup_path_of(text, f->version, path, sizeof path) != 0)
        return;
    for (;;) {
        consider_cgroup(cgroups, f, path, room);
        char *slash = strrchr(path, '/');
        if (!slash || strcmp(path, "/") == 0)
            return;
        slash[slash == path] = '\0'; /* "/a/b" to "/a", "/a" to "/" */
    }
}

void memory_room_in(const char *proc, const char *cgroups, memory_room *room) {
    char text[8192];
    *room = (memory_room){.available = UINT64_MAX, .limit_file = "", .least_limit_file = ""};
    if (read_text(proc, "meminfo", text, sizeof text) != 0 ||
        meminfo_available(text, &room->available) != 0)
        room->available = UINT64_MAX;
    walk_cgroups(proc, cgroups, &CGROUP_V2, room);
    walk_cgroups(proc, cgroups, &CGROUP_V1, room);
}

void memory_room_now(memory_room *room) {
    memory_room_in("/proc", "/sys/fs/cgroup", room);
}

const char *memory_room_reason(const memory_room *room, char *buf, size_t size) {
    char limit[32], held[32];
    if (!room->limit)
        snprintf(buf, size, "MemAvailable in /proc/meminfo");
    else
        snprintf(buf, size, "the cgroup's %s of %s, of which %.200s holds %s", room->limit_file,
                 format_bytes(room->limit, limit, sizeof limit), room->cgroup,
                 format_bytes(room->held, held, sizeof held));
    return buf;
}

apsp_status memory_room_check_in(const memory_room *room, uint64_t bytes, const char *what,
                                 apsp_error *error) {
    if (bytes <= room->available)
        return APSP_OK;
    char need[32], have[32], reason[384];
    return fail(
        error, APSP_ERR_TOO_LARGE, "%s needs %s but only %s of memory is available (%s): %s", what,
        format_bytes(bytes, need, sizeof need), format_bytes(room->available, have, sizeof have),
        memory_room_reason(room, reason, sizeof reason),
        room->limit ? "raise that limit, or run outside it"
                    : "free memory, or run on a larger machine");
}

apsp_status memory_room_check(uint64_t bytes, const char *what, apsp_error *error) {
    if (bytes < MEMORY_ROOM_LEAST)
        return APSP_OK;
    memory_room room;
    memory_room_now(&room);
    return memory_room_check_in(&room, bytes, what, error);
}

uint64_t physical_memory_said_in(const memory_room *room, char *clause, size_t size) {
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t memory = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
    char bytes[32];
    if (room->least_limit && (room->least_limit < memory || !memory)) {
        if (clause)
            snprintf(clause, size, "the %s of cgroup %.200s is %s (raise it, or run outside it)",
                     room->least_limit_file, room->least_cgroup,
                     format_bytes(room->least_limit, bytes, sizeof bytes));
        return room->least_limit;
    }
    if (clause)
        snprintf(clause, size, "this machine has %s of memory",
                 format_bytes(memory, bytes, sizeof bytes));
    return memory;
}

uint64_t physical_memory_said(char *clause, size_t size) {
    memory_room room;
    memory_room_now(&room);
    return physical_memory_said_in(&room, clause, size);
}

uint64_t physical_memory(void) {
    return physical_memory_said(NULL, 0);
}
