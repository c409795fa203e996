/* The output's temporary file, the one that output_commit.c puts into place: unnamed
 * (O_TMPFILE) where the file system has them, else named under a fresh name (O_EXCL, 0600); it
 * takes the target's mode and owner, or a new file's mode (output_handle.h). output_file.c
 * decides where it goes. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "output/output_handle.h"
#include "output/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mode_t current_umask(void) {
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

/* The replacement keeps the target's mode, and its owner and group where this process may set
 * them (root may; others may give a group they belong to): a rename would otherwise reset them
 * to a new file's. */
static int keep_attributes(int fd, const struct stat *target) {
    struct stat mine;
    if (fstat(fd, &mine) == 0 && (mine.st_uid != target->st_uid || mine.st_gid != target->st_gid)) {
        int kept = fchown(fd, target->st_uid, target->st_gid) == 0 ||
                   fchown(fd, (uid_t)-1, target->st_gid) == 0;
        (void)kept; /* neither permitted: the file stays this process's, as a new one would be */
    }
    /* After fchown, which clears the set-user-ID and set-group-ID bits. */
    return fchmod(fd, target->st_mode & 07777) == 0 ? 0 : errno;
}

/* An unnamed file (O_TMPFILE) where the file system has them and /proc can name it for the
 * linkat() at commit: a run that dies, even by SIGKILL, leaves nothing. Returns -1 with errno
 * EOPNOTSUPP where a named file must do. */
static int open_unnamed(int dir_fd) {
#ifdef O_TMPFILE
    if (access("/proc/self/fd", X_OK) == 0) {
        int fd = openat(dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666); /* the umask applies */
        if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
            return fd; /* EISDIR, EINVAL: a kernel or file system without O_TMPFILE */
    }
#endif
    (void)dir_fd;
    errno = EOPNOTSUPP;
    return -1;
}

const char *output_temp_name(const apsp_output *o) {
    return o->temp_path + path_dir_length(o->temp_path);
}

/* A named temporary file, under a name that no entry has (O_EXCL, which also refuses a link put
 * there). Returns 0 or an errno value. */
static int open_named(apsp_output *o, char *suffix) {
    for (int tries = 0; tries < TEMP_NAME_TRIES; tries++) {
        path_random_suffix(suffix);
        o->fd = openat(o->dir_fd, output_temp_name(o),
                       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (o->fd >= 0 || errno != EEXIST)
            break;
    }
    o->temp_named = o->fd >= 0;
    return o->fd >= 0 ? 0 : errno;
}

/* A temporary file in the target's directory: unnamed, else named and 0600. Returns 0 or an
 * errno value. */
int output_create_temporary(apsp_output *o, const char *dir) {
    o->temp_path = path_temp_template(o->target, dir);
    if (!o->temp_path)
        return ENOMEM;
    char *x = o->temp_path + strlen(o->temp_path) - 6;
    if (o->shared)
        return open_named(o, x);
    o->fd = open_unnamed(o->dir_fd);
    if (o->fd >= 0) {
        o->unnamed = 1;
        path_random_suffix(x); /* the name it gets for an instant at commit */
    } else if (errno == EOPNOTSUPP) {
        return open_named(o, x);
    }
    return o->fd >= 0 ? 0 : errno;
}

/* What output_create_temporary left of a file that is not to be: its name. */
void output_drop_temporary(apsp_output *o) {
    free(o->temp_path);
    o->temp_path = NULL;
    o->unnamed = 0;
}

/* The replacement, a temporary file in the target's directory. Returns 0 or an errno value. */
int output_open_temporary(apsp_output *o, const char *dir, int exists, const struct stat *st) {
    int err = output_create_temporary(o, dir);
    if (err || o->shared)
        return err; /* a shared file is 0600 until output_give_mode */
    if (exists)
        return keep_attributes(o->fd, st);
    /* A new file gets the mode fopen() would give it; O_TMPFILE applied the umask already. */
    return o->unnamed || fchmod(o->fd, 0666 & ~current_umask()) == 0 ? 0 : errno;
}

int output_give_mode(apsp_output *o) {
    if (o->target_exists)
        return keep_attributes(o->fd, &o->target_stat);
    return fchmod(o->fd, 0666 & ~current_umask()) == 0 ? 0 : errno;
}
