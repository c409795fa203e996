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
static int link_on_procfs(int dir_fd, const char *link) {
#ifdef __linux__
    (void)link;
    struct statfs fs;
    return fstatfs(dir_fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
#else
    (void)dir_fd;
    return strncmp(link, "/proc/", 6) == 0 || strncmp(link, "/dev/fd/", 8) == 0;
#endif
}

/* What the symbolic link `link`, in the directory dir_fd, points at, as a path usable from here:
 * relative texts are relative to the link's directory. */
static char *link_destination(int dir_fd, const char *link, int *err) {
    char text[PATH_MAX];
    ssize_t n = readlinkat(dir_fd, link + path_dir_length(link), text, sizeof text - 1);
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

/* The directory `dir`, opened to be held: for reading (so that it can be synced), else, where
 * this process may enter it but not list it, as a path (O_PATH: enough for the *at() calls).
 * Returns the descriptor, or -1 with errno set. */
static int dir_hold(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == EACCES)
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd;
}

/* The kernel's rule for a sticky directory that others may write (/tmp): there, an entry is
 * followed or written only where it belongs to this user or to the directory's owner. The
 * kernel looks at world-writable directories (and at group-writable ones for files only with
 * protected_regular=2); a group-writable one is just as shared, so both count here. */
static int entry_trusted(const struct stat *dir, uid_t owner) {
    int shared = (dir->st_mode & S_ISVTX) && (dir->st_mode & (S_IWGRP | S_IWOTH));
    return !shared || owner == geteuid() || owner == dir->st_uid;
}

/* The directory of `path`, held in f->dir_fd (the one held before closed), and what `path` is
 * in it, as seen through that descriptor: the checks and the use see one directory. Returns 0
 * (f->exists 0: no such entry) or an errno value. */
static int look_up(const char *path, path_found *f) {
    char dir[PATH_MAX];
    if (f->dir_fd >= 0)
        close(f->dir_fd);
    f->exists = 0;
    int err = path_dir(path, dir);
    f->dir_fd = err ? -1 : dir_hold(dir);
    if (err || f->dir_fd < 0)
        return err ? err : errno;
    if (fstat(f->dir_fd, &f->dir) != 0)
        return errno;
    if (fstatat(f->dir_fd, path + path_dir_length(path), &f->st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : errno; /* missing: created, if its directory exists */
    f->exists = 1;
    return 0;
}

/* path_resolve's hops; the caller closes the directory where this fails. */
static int follow_links(char **target, path_found *f) {
    for (int hops = 0;; hops++) {
        int err = look_up(*target, f);
        if (err || !f->exists)
            return err;
        int file = S_ISREG(f->st.st_mode) || S_ISFIFO(f->st.st_mode);
        if (!S_ISLNK(f->st.st_mode))
            return file && !entry_trusted(&f->dir, f->st.st_uid) ? FOREIGN_FILE : 0;
        if (link_on_procfs(f->dir_fd, *target)) {
            f->via_proc = 1;
            f->exists = stat(*target, &f->st) == 0;
            return 0;
        }
        if (hops == MAX_LINK_HOPS)
            return ELOOP;
        char *next = link_destination(f->dir_fd, *target, &err);
        if (!next)
            return err;
        if (!entry_trusted(&f->dir, f->st.st_uid)) {
            f->link = *target; /* and *target what it names, for the message */
            *target = next;
            return LINK_NOT_FOLLOWED;
        }
        free(*target);
        *target = next;
    }
}

int path_resolve(char **target, path_found *found) {
    *found = (path_found){.dir_fd = -1};
    int err = follow_links(target, found);
    if (err && found->dir_fd >= 0) {
        close(found->dir_fd);
        found->dir_fd = -1;
    }
    return err;
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
