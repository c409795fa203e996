/* base/memory_room.c: what this process can still get of the host's memory. The parsers on
 * given texts (/proc/meminfo, /proc/self/cgroup of cgroup v1, v2 and both, memory.max and
 * memory.limit_in_bytes with "max" and v1's huge "none", memory.stat), then memory_room_in on
 * trees of such files built in a temporary directory: files missing, the tightest of a cgroup
 * and its ancestors winning, a cgroup's page cache not counted as held, v1 beside v2, a
 * container whose /sys/fs/cgroup is its own cgroup; and the refusal's one line naming both
 * figures and the limit. tests/cli/test_memory_cgroup.py runs the command in a real cgroup. */
#include "base/memory_room.h"
#include "check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static const char MEMINFO[] = "MemTotal:       24683656 kB\n"
                              "MemFree:         1234567 kB\n"
                              "MemAvailable:   11534336 kB\n"
                              "Buffers:          102400 kB\n";

static void test_meminfo(void) {
    uint64_t bytes = 0;
    CHECK(meminfo_available(MEMINFO, &bytes) == 0 && bytes == (uint64_t)11534336 * 1024,
          "MemAvailable of 11 GiB read as %llu", (unsigned long long)bytes);
    CHECK(meminfo_available("MemTotal: 100 kB\nMemFree: 50 kB\n", &bytes) == -1,
          "a meminfo without MemAvailable (kernels before 3.14) says nothing");
    CHECK(meminfo_available("MemAvailableX: 5 kB\n", &bytes) == -1, "only the exact key counts");
    CHECK(meminfo_available("MemAvailable:\n", &bytes) == -1, "a key without a number");
    CHECK(meminfo_available("MemAvailable: 5 MB\n", &bytes) == -1, "a unit other than kB");
    CHECK(meminfo_available("", &bytes) == -1, "an empty file");
}

static void test_cgroup_paths(void) {
    char path[256];
    const char *v2 = "0::/user.slice/user-1000.slice/session-2.scope\n";
    CHECK(cgroup_path_of(v2, 2, path, sizeof path) == 0 &&
              strcmp(path, "/user.slice/user-1000.slice/session-2.scope") == 0,
          "v2's path, got %s", path);
    CHECK(cgroup_path_of(v2, 1, path, sizeof path) == -1, "a v2-only system has no v1 memory");
    const char *hybrid = "9:name=systemd:/\n5:devices:/\n4:memory:/process_api/e89b\n"
                         "3:cpu,cpuacct:/\n0::/\n";
    CHECK(cgroup_path_of(hybrid, 1, path, sizeof path) == 0 &&
              strcmp(path, "/process_api/e89b") == 0,
          "v1's memory line, got %s", path);
    CHECK(cgroup_path_of(hybrid, 2, path, sizeof path) == 0 && strcmp(path, "/") == 0,
          "v2's root beside v1, got %s", path);
    CHECK(cgroup_path_of("7:cpu,memory,pids:/jobs/42", 1, path, sizeof path) == 0 &&
              strcmp(path, "/jobs/42") == 0,
          "memory among several controllers (no final newline), got %s", path);
    CHECK(cgroup_path_of("4:memory_x:/a\n3:xmemory:/b\n", 1, path, sizeof path) == -1,
          "only the controller named memory");
    CHECK(cgroup_path_of("1:name=systemd:/\n", 2, path, sizeof path) == -1, "v1 only: no 0:: line");
    CHECK(cgroup_path_of("0::/a/very/long/path", 2, path, 8) == -1, "a path longer than the room");
    CHECK(cgroup_path_of("", 2, path, sizeof path) == -1, "an empty file");
}

static void test_cgroup_numbers(void) {
    uint64_t value = 0;
    CHECK(cgroup_limit_parse("max\n", &value) == 0 && value == UINT64_MAX, "v2's max: none");
    CHECK(cgroup_limit_parse("1073741824\n", &value) == 0 && value == GIB, "a limit of 1 GiB");
    CHECK(cgroup_limit_parse("9223372036854771712\n", &value) == 0 && value == UINT64_MAX,
          "v1's none, the largest page count in bytes");
    CHECK(cgroup_limit_parse("maximum\n", &value) == -1, "not max");
    CHECK(cgroup_limit_parse("12 34\n", &value) == -1, "two numbers");
    CHECK(cgroup_limit_parse("", &value) == -1, "an empty file");
    CHECK(cgroup_limit_parse("99999999999999999999999\n", &value) == -1, "past 64 bits");
    CHECK(cgroup_number_parse("31744000\n", &value) == 0 && value == 31744000, "a usage");
    CHECK(cgroup_number_parse("-5\n", &value) == -1, "a negative usage");
    const char *v2_stat = "anon 1000\nfile 4000\nactive_file 1000\ninactive_file 2000\n"
                          "shmem 1000\n";
    CHECK(cgroup_stat_cache(v2_stat, 2) == 3000, "v2's page cache: active + inactive file");
    const char *v1_stat = "cache 9\nactive_file 1\ninactive_file 2\n"
                          "total_cache 900\ntotal_active_file 100\ntotal_inactive_file 200\n";
    CHECK(cgroup_stat_cache(v1_stat, 1) == 300, "v1's page cache: the hierarchical totals");
    CHECK(cgroup_stat_cache("anon 5\n", 2) == 0, "no file lines: no cache");
}

/* ---- trees of files ------------------------------------------------------------------------ */

static char base[256], root[320]; /* a directory of this run's; the tree in it */

/* ROOT/RELATIVE with `text`, its directories made first. */
static void put(const char *relative, const char *format, ...) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", root, relative);
    for (char *slash = strchr(path + strlen(root) + 1, '/'); slash;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            perror(path);
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    va_list args;
    va_start(args, format);
    vfprintf(f, format, args);
    va_end(args);
    fclose(f);
}

/* Runs a shell command on paths of this run's own directory. */
static void shell(const char *format, const char *a, const char *b) {
    char command[1024];
    snprintf(command, sizeof command, format, a, b);
    if (system(command) != 0)
        fprintf(stderr, "failed: %s\n", command);
}

/* A new empty tree in the run's directory (the last one removed). */
static void new_tree(const char *name) {
    snprintf(root, sizeof root, "%s/%s", base, name);
    shell("rm -rf '%s' && mkdir -p '%s'/proc/self", root, root);
}

static void room_of_tree(memory_room *room) {
    char proc[400], cgroups[400];
    snprintf(proc, sizeof proc, "%s/proc", root);
    snprintf(cgroups, sizeof cgroups, "%s/cgroup", root);
    memory_room_in(proc, cgroups, room);
}

static void test_nothing_says(void) {
    memory_room room;
    new_tree("empty");
    room_of_tree(&room);
    CHECK(room.available == UINT64_MAX && room.limit == 0 && room.least_limit == 0,
          "no files: nothing says, no limit (available %llu)", (unsigned long long)room.available);
    put("proc/meminfo", "%s", MEMINFO);
    put("proc/self/cgroup", "0::/a\n");
    put("cgroup/a/memory.max", "max\n");
    put("cgroup/a/memory.current", "%llu\n", (unsigned long long)GIB);
    room_of_tree(&room);
    CHECK(room.available == (uint64_t)11534336 * 1024 && room.limit == 0 && room.least_limit == 0,
          "meminfo and a cgroup without a limit: MemAvailable");
}

/* cgroup v2: /a/b in /a, each with a limit; /a holds 1.5 GiB of which 0.5 GiB page cache. */
static void test_v2_ancestors(void) {
    memory_room room;
    new_tree("v2");
    put("proc/meminfo", "MemAvailable: %llu kB\n", (unsigned long long)(8 * GIB / 1024));
    put("proc/self/cgroup", "0::/a/b\n");
    put("cgroup/a/b/memory.max", "%llu\n", (unsigned long long)(3 * GIB));
    put("cgroup/a/b/memory.current", "%llu\n", (unsigned long long)(GIB / 2));
    put("cgroup/a/memory.max", "%llu\n", (unsigned long long)(2 * GIB));
    put("cgroup/a/memory.current", "%llu\n", (unsigned long long)(3 * GIB / 2));
    put("cgroup/a/memory.stat", "anon 1\nactive_file %llu\ninactive_file %llu\n",
        (unsigned long long)(GIB / 4), (unsigned long long)(GIB / 4));
    room_of_tree(&room);
    CHECK(room.available == GIB && room.limit == 2 * GIB && room.held == GIB &&
              strcmp(room.cgroup, "/a") == 0 && strcmp(room.limit_file, "memory.max") == 0,
          "the parent's 2 GiB less its 1 GiB held (its cache not counted) is tighter than the "
          "child's 3 GiB less 0.5 and than MemAvailable: got %llu from %s's %s",
          (unsigned long long)room.available, room.cgroup, room.limit_file);
    CHECK(room.least_limit == 2 * GIB && strcmp(room.least_cgroup, "/a") == 0,
          "the least limit is the parent's");
    char buf[384];
    memory_room_reason(&room, buf, sizeof buf);
    CHECK(strcmp(buf, "the cgroup's memory.max of 2.00 GiB, of which /a holds 1.00 GiB") == 0,
          "the reason names the limit and what the cgroup holds: %s", buf);
    put("cgroup/a/memory.current", "%llu\n", (unsigned long long)(5 * GIB / 2));
    room_of_tree(&room);
    CHECK(room.available == 0 && room.limit == 2 * GIB, "a cgroup over its limit leaves nothing");
    put("cgroup/a/memory.max", "max\n");
    put("proc/meminfo", "MemAvailable: %llu kB\n", (unsigned long long)(GIB / 1024));
    room_of_tree(&room);
    CHECK(room.available == GIB && room.limit == 0,
          "MemAvailable below the child's 2.5 GiB left decides");
    char path[600];
    snprintf(path, sizeof path, "%s/cgroup/a/b/memory.current", root);
    unlink(path);
    put("proc/meminfo", "MemAvailable: %llu kB\n", (unsigned long long)(8 * GIB / 1024));
    room_of_tree(&room);
    CHECK(room.available == 3 * GIB && room.held == 0,
          "a limit whose usage cannot be read counts as nothing held");
}

/* cgroup v1's memory controller beside v2's root, as on a hybrid system. */
static void test_v1(void) {
    memory_room room;
    new_tree("v1");
    put("proc/meminfo", "%s", MEMINFO);
    put("proc/self/cgroup", "4:memory:/x/y\n1:cpu:/\n0::/\n");
    put("cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put("cgroup/memory/memory.usage_in_bytes", "%llu\n", (unsigned long long)(20 * GIB));
    put("cgroup/memory/x/y/memory.limit_in_bytes", "%llu\n", (unsigned long long)GIB);
    put("cgroup/memory/x/y/memory.usage_in_bytes", "%llu\n", (unsigned long long)(100 * MIB));
    put("cgroup/memory/x/y/memory.stat", "total_active_file %llu\ntotal_inactive_file %llu\n",
        (unsigned long long)(30 * MIB), (unsigned long long)(20 * MIB));
    room_of_tree(&room);
    CHECK(room.available == GIB - 50 * MIB && room.limit == GIB && room.held == 50 * MIB &&
              strcmp(room.limit_file, "memory.limit_in_bytes") == 0 &&
              strcmp(room.cgroup, "/x/y") == 0,
          "v1: 1 GiB less the 100 MiB used, 50 MiB of it cache (got %llu, %s)",
          (unsigned long long)room.available, room.cgroup);
    CHECK(room.least_limit == GIB, "the root's huge limit is none");
}

/* A container whose /sys/fs/cgroup is its own cgroup: /proc/self/cgroup names a path that is
 * not there, and the container's limit is at the top. */
static void test_container(void) {
    memory_room room;
    new_tree("container");
    put("proc/meminfo", "%s", MEMINFO);
    put("proc/self/cgroup", "0::/docker/0123abcd\n");
    put("cgroup/memory.max", "%llu\n", (unsigned long long)(512 * MIB));
    put("cgroup/memory.current", "%llu\n", (unsigned long long)(12 * MIB));
    room_of_tree(&room);
    CHECK(room.available == 500 * MIB && strcmp(room.cgroup, "/") == 0,
          "the container's limit found at the top (got %llu)", (unsigned long long)room.available);
}

static void test_check_message(void) {
    memory_room room = {.available = GIB, .limit_file = "", .least_limit_file = ""};
    apsp_error err = {0};
    CHECK(memory_room_check_in(&room, GIB, "V = 1: the matrix", &err) == APSP_OK,
          "what fits exactly passes");
    CHECK(memory_room_check_in(&room, GIB + 1, "V = 16384: the int32 distance matrix", &err) ==
                  APSP_ERR_TOO_LARGE &&
              err.status == APSP_ERR_TOO_LARGE,
          "a byte more is refused as too large (exit 5)");
    CHECK(strcmp(err.message, "V = 16384: the int32 distance matrix needs 1.00 GiB but only 1.00 "
                              "GiB of memory is available (MemAvailable in /proc/meminfo): free "
                              "memory, or run on a larger machine") == 0,
          "MemAvailable's line: %s", err.message);
    room = (memory_room){.available = 100 * MIB,
                         .limit = GIB,
                         .held = 924 * MIB,
                         .limit_file = "memory.max",
                         .cgroup = "/jobs/7"};
    memory_room_check_in(&room, 3 * GIB, "V = 30000: the int32 distance matrix", &err);
    CHECK(strstr(err.message, "needs 3.00 GiB but only 100.00 MiB of memory is available (the "
                              "cgroup's memory.max of 1.00 GiB, of which /jobs/7 holds 924.00 "
                              "MiB): raise that limit") != NULL &&
              !strchr(err.message, '\n'),
          "the cgroup's line: %s", err.message);
}

int main(void) {
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(base, sizeof base, "%s/memory-room-XXXXXX", tmp);
    if (!mkdtemp(base)) {
        perror(base);
        return 1;
    }
    test_meminfo();
    test_cgroup_paths();
    test_cgroup_numbers();
    test_nothing_says();
    test_v2_ancestors();
    test_v1();
    test_container();
    test_check_message();
    shell("rm -rf '%s'%s", base, "");
    printf("memory-room: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
