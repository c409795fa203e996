/* Paths for the output file (output_path.h). */
#define _GNU_SOURCE
#include "output/output_path.h"
#include "base/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#endif

enum {
    MAX_LINK_HOPS = 40,     /* the kernel's own limit before ELOOP */
    TEMP_SUFFIX_BYTES = 13, /* "." + ".apsp-XXXXXX" around the target's name */
};

/* The length of "dir/" in "dir/name" (0 for a bare name). */
size_t path_dir_length(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path + 1) : 0;
}

/* The directory part of a path as a path of its own ("." for a bare name). No allocation: it is
 * needed after the rename too, where a failure must not be an error. */
int path_dir(const char *path, char dir[PATH_MAX]) {
    size_t len = path_dir_length(path);
    if (len >= PATH_MAX)
        return ENAMETOOLONG;
    snprintf(dir, PATH_MAX, "%.*s", (int)(len ? len : 1), len ? path : ".");
    return 0;
}

/* A link in /proc (/proc/self/fd/N, which /dev/stdout leads to) names an open file, not a path:
 * its text may be "pipe:[123]" or "/x (deleted)", so such an output is opened through the link. */
static int link_on_procfs(const char *link) {
#ifdef __linux__
    char dir[PATH_MAX];
    struct statfs fs;
    return path_dir(link, dir) == 0 && statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
#else
    return strncmp(link, "/proc/", 6) == 0 || strncmp(link, "/dev/fd/", 8) == 0;
#endif
}

/* What a symbolic link points at, as a path usable from here: relative texts are relative to the
 * link's directory. */
static char *link_destination(const char *link, int *err) {
    char text[PATH_MAX];
    ssize_t n = readlink(link, text, sizeof text - 1);
    if (n < 0 || (size_t)n == sizeof text - 1) {
        *err = n < 0 ? errno : ENAMETOOLONG;
        return NULL;
    }
    text[n] = '\0';
    size_t dir_len = text[0] == '/' ? 0 : path_dir_length(link);
    size_t size = dir_len + (size_t)n + 1;
    char *dest = apsp_malloc(size);
    if (dest)
        snprintf(dest, size, "%.*s%s", (int)dir_len, link, text);
    *err = dest ? 0 : ENOMEM;
    return dest;
}

int path_resolve(char **target, int *exists, struct stat *st, int *via_proc) {
    *exists = 0;
    *via_proc = 0;
    for (int hops = 0;; hops++) {
        if (lstat(*target, st) != 0)
            return errno == ENOENT ? 0 : errno; /* missing: created, if its directory exists */
        *exists = 1;
        if (!S_ISLNK(st->st_mode))
            return 0;
        if (link_on_procfs(*target)) {
            *via_proc = 1;
            *exists = stat(*target, st) == 0;
            return 0;
        }
        if (hops == MAX_LINK_HOPS)
            return ELOOP;
        int err;
        char *next = link_destination(*target, &err);
        if (!next)
            return err;
        free(*target);
        *target = next;
        *exists = 0;
    }
}

int dir_sync(int dir_fd) {
    if (fsync(dir_fd) == 0)
        return 0;
    /* EBADF: held as a path only (O_PATH); EINVAL, EROFS: directories some file systems cannot
     * sync. */
    return errno == EBADF || errno == EINVAL || errno == EROFS ? 0 : errno;
}

/* The rename makes the new file the target; fsync of the directory makes that last. */
int path_sync_dir(const char *target) {
    char dir[PATH_MAX];
    /* A directory this process cannot open (no read permission) cannot be synced by it. */
    int fd = path_dir(target, dir) == 0 ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd < 0)
        return 0;
    int err = dir_sync(fd);
    close(fd);
    return err;
}

void path_random_suffix(char *x) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static atomic_uint counter; /* outputs opened on several threads at once differ too */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t v = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^
                 ((uint64_t)atomic_fetch_add(&counter, 1) * 0x9E3779B97F4A7C15u);
    for (int i = 0; i < 6; i++, v /= 62)
        x[i] = digits[v % 62];
}

char *path_temp_template(const char *target, const char *dir) {
    long name_max = pathconf(dir, _PC_NAME_MAX);
    size_t dir_len = path_dir_length(target), base_len = strlen(target + dir_len);
    size_t keep = name_max > TEMP_SUFFIX_BYTES ? (size_t)name_max - TEMP_SUFFIX_BYTES : 0;
    if (name_max <= 0)
        keep = NAME_MAX - TEMP_SUFFIX_BYTES;
    if (base_len > keep)
        base_len = keep;
    size_t size = dir_len + base_len + TEMP_SUFFIX_BYTES + 1;
    char *t = apsp_malloc(size);
    if (t)
        snprintf(t, size, "%.*s.%.*s.apsp-XXXXXX", (int)dir_len, target, (int)base_len,
                 target + dir_len);
    return t;
}
