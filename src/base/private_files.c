/* Files that only this user can have written (private_files.h). */
#define _GNU_SOURCE
#include "base/private_files.h"
#include "base/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether someone else could have changed what `st` describes; if so `reason` says why. A
 * root-owned sticky directory may be writable by all where `sticky_ok` (a parent). */
static int untrusted(const char *path, const struct stat *st, int sticky_ok, char *reason,
                     size_t room) {
    uid_t me = geteuid();
    int sticky_root = sticky_ok && st->st_uid == 0 && (st->st_mode & S_ISVTX);
    if (st->st_uid != me && st->st_uid != 0)
        snprintf(reason, room, "%s is owned by uid %u, not by this user (uid %u)", path,
                 (unsigned)st->st_uid, (unsigned)me);
    else if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_root)
        snprintf(reason, room, "%s is writable by %s (mode %04o)", path,
                 st->st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st->st_mode & 07777));
    else
        return 0;
    return 1;
}

/* The user's home directory, from the password database (the library reads no environment). */
static int home_directory(struct stat *home) {
    char buffer[4096];
    struct passwd entry, *found = NULL;
    return getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &found) == 0 && found &&
                   found->pw_dir && stat(found->pw_dir, home) == 0
               ? 0
               : -1;
}

/* Cuts the last component off an absolute path ("/a/b" to "/a", "/a" to "/"). */
static void cut_last(char *path) {
    char *slash = strrchr(path, '/');
    if (slash == path)
        slash++;
    *slash = '\0';
}

/* Whether the directory `path` (absolute, no symbolic links) and those above it are trusted, up
 * to the home directory or /. The first is a parent itself when `parent_first`. */
static int chain_trusted(char *path, int parent_first, char *reason, size_t room) {
    struct stat home, st;
    int have_home = home_directory(&home) == 0;
    *reason = '\0';
    for (int parent = parent_first;; parent = 1) {
        if (lstat(path, &st) != 0)
            snprintf(reason, room, "%s: %s", path, strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            snprintf(reason, room, "%s is not a directory", path);
        if (*reason || untrusted(path, &st, parent, reason, room))
            return 0;
        if ((have_home && st.st_dev == home.st_dev && st.st_ino == home.st_ino) ||
            strcmp(path, "/") == 0)
            return 1;
        cut_last(path);
    }
}

/* The deepest existing directory that `dir` (missing) would be made in, resolved into `path`;
 * *missing: where the components below it begin in `dir`. */
static int existing_parent(const char *dir, char path[PATH_MAX], const char **missing) {
    char trimmed[PATH_MAX];
    if (snprintf(trimmed, sizeof trimmed, "%s", dir) >= (int)sizeof trimmed)
        return -1;
    while (strcmp(trimmed, "/") != 0 && strcmp(trimmed, ".") != 0) {
        size_t kept = 0;
        if (strchr(trimmed, '/')) {
            cut_last(trimmed);
            kept = strlen(trimmed);
        } else {
            snprintf(trimmed, sizeof trimmed, ".");
        }
        if (realpath(trimmed, path)) {
            *missing = dir + kept + strspn(dir + kept, "/");
            return 0;
        }
        if (errno != ENOENT)
            return -1;
    }
    return -1;
}

private_dir_state private_dir_check(const char *dir, char *resolved, size_t resolved_room,
                                    const char **missing, char *reason, size_t reason_room) {
    char path[PATH_MAX];
    *reason = '\0';
    *missing = NULL;
    errno = 0;
    int found = realpath(dir, path) != NULL, absent = !found && errno == ENOENT;
    if (!found && (!absent || existing_parent(dir, path, missing) != 0)) {
        snprintf(reason, reason_room, "%s: %s", dir, strerror(absent ? ENOENT : errno));
        return PRIVATE_DIR_REFUSED;
    }
    if (snprintf(resolved, resolved_room, "%s", path) >= (int)resolved_room) {
        snprintf(reason, reason_room, "%s: the path is too long", path);
        return PRIVATE_DIR_REFUSED;
    }
    if (!chain_trusted(path, absent, reason, reason_room))
        return PRIVATE_DIR_REFUSED;
    return absent ? PRIVATE_DIR_ABSENT : PRIVATE_DIR_TRUSTED;
}

/* The directory `name` in `dir_fd`, made (0700) where missing and opened without following a
 * link: a link put there since the check is refused (ELOOP), not made through. Closes dir_fd;
 * returns the new descriptor, or -1 with errno. */
static int make_level(int dir_fd, const char *name) {
    int fd = -1;
    if (fault_hit(FAULT_IO))
        errno = EIO;
    else if (mkdirat(dir_fd, name, 0700) == 0 || errno == EEXIST)
        fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    close(dir_fd);
    errno = saved;
    return fd;
}

int private_dir_make(const char *parent, const char *missing) {
    /* O_PATH: making entries needs no right to list the directory. */
    int fd = open(parent, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    char name[NAME_MAX + 1];
    for (const char *at = missing; fd >= 0 && *at; at += strspn(at, "/")) {
        size_t length = strcspn(at, "/");
        if (length > NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        snprintf(name, sizeof name, "%.*s", (int)length, at);
        fd = make_level(fd, name);
        at += length;
    }
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int read_all(int fd, unsigned char *data, size_t size) {
    while (size > 0) {
        ssize_t n = fault_hit(FAULT_IO) ? -1 : read(fd, data, size);
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

static int write_all(int fd, const unsigned char *data, size_t size) {
    while (size > 0) {
        ssize_t n = fault_hit(FAULT_IO) ? -1 : write(fd, data, size);
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* The contents of the open file when it is trusted, else NULL with `reason`. */
static unsigned char *trusted_contents(int fd, const char *path, size_t most, size_t *size,
                                       char *reason, size_t room) {
    struct stat st;
    unsigned char *data = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(reason, room, "%s is not a regular file", path);
    else if (untrusted(path, &st, 0, reason, room))
        return NULL;
    else if (st.st_size <= 0 || (uint64_t)st.st_size > most)
        snprintf(reason, room, "%s is empty or larger than %zu bytes", path, most);
    else if (!(data = apsp_malloc((size_t)st.st_size)))
        snprintf(reason, room, "%s: out of memory", path);
    else if (read_all(fd, data, (size_t)st.st_size) != 0) {
        snprintf(reason, room, "%s: cannot read it", path);
        free(data);
        data = NULL;
    } else
        *size = (size_t)st.st_size;
    return data;
}

unsigned char *private_file_read(const char *path, size_t most, size_t *size, char *reason,
                                 size_t reason_room) {
    *reason = '\0';
    /* O_NONBLOCK: a FIFO planted under the name must not hang the open. */
    int fd = fault_hit(FAULT_IO)
                 ? (errno = EIO, -1)
                 : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno != ENOENT)
            snprintf(reason, reason_room, "%s: %s", path,
                     errno == ELOOP ? "a symbolic link" : strerror(errno));
        return NULL;
    }
    unsigned char *data = trusted_contents(fd, path, most, size, reason, reason_room);
    close(fd);
    return data;
}

int private_file_replace(const char *path, const void *data, size_t size) {
    char temp[PATH_MAX + 16];
    if (snprintf(temp, sizeof temp, "%s.XXXXXX", path) >= (int)sizeof temp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* mkostemp creates with O_EXCL and mode 0600; O_NOFOLLOW says so for the reader too. */
    int fd = fault_hit(FAULT_IO) ? (errno = EIO, -1) : mkostemp(temp, O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    int ok = write_all(fd, data, size) == 0;
    ok = close(fd) == 0 && ok;
    if (ok && !fault_hit(FAULT_IO) && rename(temp, path) == 0)
        return 0;
    int saved = errno;
    unlink(temp);
    errno = saved;
    return -1;
}

int private_file_create(const char *path, const void *data, size_t size) {
    if (fault_hit(FAULT_IO)) {
        errno = EIO;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int ok = write_all(fd, data, size) == 0;
    if (close(fd) == 0 && ok)
        return 0;
    unlink(path);
    return -1;
}
