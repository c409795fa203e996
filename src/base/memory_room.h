/* How much host memory this process can still get, and what says so: the kernel's estimate
 * (MemAvailable in /proc/meminfo, which counts the reclaimable page cache as free) and the
 * memory limit of each cgroup above the process less what that cgroup holds (cgroup v2:
 * memory.max, memory.current; v1: memory.limit_in_bytes, memory.usage_in_bytes), the tightest
 * winning. A cgroup's page cache (memory.stat: active_file + inactive_file) is not counted as
 * held, since the kernel reclaims it before it kills for the limit, as MemAvailable counts the
 * machine's. Swap is not counted: a matrix that only fits there is refused. */
#ifndef APSP_MEMORY_ROOM_H
#define APSP_MEMORY_ROOM_H

#include "apsp.h"

#include <stddef.h>
#include <stdint.h>

/* Allocations below this are not checked: the kernel keeps more than that in reserve, and a
 * small run reads no /proc or /sys file for it. */
#define MEMORY_ROOM_LEAST ((uint64_t)64 << 20)

typedef struct memory_room {
    uint64_t available;     /* bytes this process can still get; UINT64_MAX when nothing says */
    uint64_t limit;         /* the limit of the cgroup that decides it; 0: MemAvailable does */
    uint64_t held;          /* what that cgroup holds, less its page cache */
    const char *limit_file; /* that limit's file: "memory.max" or "memory.limit_in_bytes" */
    char cgroup[256];       /* that cgroup's path ("/..."), cut short if longer */
    /* The least memory limit of the cgroups above the process (0: none), its file and cgroup:
     * the most it may ever hold (physical_memory). */
    uint64_t least_limit;
    const char *least_limit_file;
    char least_cgroup[256];
} memory_room;

/* The room now: memory_room_in("/proc", "/sys/fs/cgroup", room). */
void memory_room_now(memory_room *room);
/* The room as the files under `proc` (meminfo, self/cgroup) and `cgroups` (the v2 hierarchy,
 * and the v1 memory controller's under memory/) say; a missing or unreadable file says
 * nothing. A cgroup's files are looked up along its path from /proc/self/cgroup and every
 * ancestor's (in a container whose /sys/fs/cgroup is its own cgroup, the path's upper part is
 * missing there and the container's limit is found at the top). */
void memory_room_in(const char *proc, const char *cgroups, memory_room *room);

/* APSP_ERR_TOO_LARGE unless `bytes` more fit the room now, with one line: "WHAT needs X but
 * only Y of memory is available (MemAvailable ...): ..." or naming the cgroup's limit and what
 * it holds. Below MEMORY_ROOM_LEAST nothing is read. Every check of the library; the apsp
 * command's is apsp_memory_check (apsp.h), which calls this. */
apsp_status memory_room_check(uint64_t bytes, const char *what, apsp_error *error);
/* The same against a room already read (memory_room_in). */
apsp_status memory_room_check_in(const memory_room *room, uint64_t bytes, const char *what,
                                 apsp_error *error);
/* Which limit decides the room, for a message: "MemAvailable in /proc/meminfo" or "the
 * cgroup's memory.max of 1.00 GiB, of which /a/b holds 120.00 MiB". Returns buf. */
const char *memory_room_reason(const memory_room *room, char *buf, size_t size);

/* The parsers, on the files' text (tests/api/test_memory_room.c). Each returns 0, or -1 when
 * the text does not hold what it looks for. */
/* /proc/meminfo's "MemAvailable:   123456 kB", in bytes. */
int meminfo_available(const char *text, uint64_t *bytes);
/* /proc/self/cgroup's path for cgroup v2 (`version` 2: the line "0::PATH") or for the v1 memory
 * controller (1: the line "N:...memory...:PATH"). */
int cgroup_path_of(const char *text, int version, char *path, size_t size);
/* memory.max or memory.limit_in_bytes: a number, or "max" and v1's huge "none"
 * (9223372036854771712), both UINT64_MAX. */
int cgroup_limit_parse(const char *text, uint64_t *bytes);
/* memory.current or memory.usage_in_bytes: a number. */
int cgroup_number_parse(const char *text, uint64_t *value);
/* memory.stat's page cache: active_file + inactive_file (v1: total_active_file +
 * total_inactive_file, the cgroup's and its children's, as memory.usage_in_bytes counts). 0
 * when absent. */
uint64_t cgroup_stat_cache(const char *text, int version);

/* Physical memory in bytes, or the least memory limit of the cgroups above this process when
 * that is lower (memory_room.h); 0 when the system does not say. The machine's size, for
 * decisions about it; what can still be had now is memory_room's. */
uint64_t physical_memory(void);
/* The same, with a clause for a message in `clause`: "this machine has 23.54 GiB of memory" or
 * "the memory.max of cgroup /a/b is 1.00 GiB (raise it, or run outside it)". */
uint64_t physical_memory_said(char *clause, size_t size);
/* The same against a room already read (memory_room_now), for a caller that checks the room
 * too and reads the files once. */
uint64_t physical_memory_said_in(const memory_room *room, char *clause, size_t size);

#endif
