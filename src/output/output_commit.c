/* Putting the finished output into place (output_finish): the file synced and checked whole,
 * then linked or renamed over the target (replace mode), or copied over it (in place, and where
 * a rename is refused at the end). output_file.c opened everything this uses. */
#define _GNU_SOURCE /* SEEK_HOLE, fallocate's FALLOC_FL_KEEP_SIZE */
#include "output/output_file.h"
#include "output/output_handle.h"
#include "output/output_map.h"
#include "output/output_path.h"
#include "base/error.h"
#include "base/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

static int link_unnamed(const apsp_output *o, const char *name) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    return linkat(AT_FDCWD, proc, o->dir_fd, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
}

/* The unnamed file gets the target's name at once where there was no target (EEXIST: one
 * appeared since, which is replaced like any); else a temporary name to rename from. */
static int name_unnamed(apsp_output *o, int *done) {
    *done = 0;
    int err = EEXIST;
    if (!o->target_exists && (err = link_unnamed(o, o->name)) == 0)
        *done = 1;
    char *x = o->temp_path + strlen(o->temp_path) - 6;
    for (int tries = 0; err == EEXIST && tries < TEMP_NAME_TRIES; tries++) {
        err = link_unnamed(o, output_temp_name(o));
        if (err == EEXIST)
            path_random_suffix(x);
    }
    o->temp_named = !*done && !err;
    return err;
}

/* The finished file's bytes over `out`, the target, under its lock (output_lock.c: another run
 * copying into the same file waits, so the file is one whole result, not a mix of both), which
 * closing `out` releases. Its room is reserved first (fallocate without changing its size), so
 * that a full disk fails before its old bytes are touched; the bytes then go over the old ones
 * from the start, and the file is cut to the new length last. */
static int copy_into(const apsp_output *o, int out) {
    struct stat st;
    int err = output_lock_copy(out);
    if (err)
        return err;
    if (fstat(o->fd, &st) != 0)
        return errno;
    if (st.st_size > 0 && fallocate(out, FALLOC_FL_KEEP_SIZE, 0, st.st_size) != 0 &&
        errno != EOPNOTSUPP && errno != ENOSYS && errno != EINTR)
        return errno; /* file systems without fallocate are written as they are */
    if (lseek(out, 0, SEEK_SET) != 0)
        return errno;
    off_t offset = 0;
    while (offset < st.st_size) {
        ssize_t n = sendfile(out, o->fd, &offset, (size_t)(st.st_size - offset));
        if (n <= 0 && !(n < 0 && errno == EINTR))
            return n < 0 ? errno : EIO;
        fault_pause("copy");
    }
    if (ftruncate(out, st.st_size) != 0 || fsync(out) != 0)
        return errno;
    return 0;
}

/* The rename was refused after the whole computation (a file of another user in a sticky
 * directory that the up-front check could not see, a mount point, a security module): the bytes
 * are copied over the target instead, as the course binary would have written them, but only
 * into the file that was there at the start (output_open_target). Where the rename was refused
 * because someone else's entry took the target's name (in a sticky directory of theirs: a link
 * to one of this user's files), that is refused, not written through. */
static int copy_over_target(apsp_output *o) {
    int err = 0, out = output_open_target(o, &err);
    if (out < 0)
        return err;
    err = copy_into(o, out);
    if (close(out) != 0 && !err)
        err = errno;
    return err;
}

/* A rename that cannot work here, where writing the file in place still can. */
static int rename_refused(int err) {
    return err == EPERM || err == EACCES || err == EBUSY || err == EXDEV;
}

static apsp_status replace_target(apsp_output *o, apsp_error *error) {
    int done = 0, err = o->unnamed ? name_unnamed(o, &done) : 0;
    if (!err && !done && renameat(o->dir_fd, output_temp_name(o), o->dir_fd, o->name) != 0) {
        err = errno;
        if (rename_refused(err)) {
            int copy_err = copy_over_target(o);
            if (copy_err)
                return fail(error, APSP_ERR_OUTPUT,
                            "%s: cannot move the output into place (%s) nor write it there: %s",
                            o->path, strerror(err), output_error_text(copy_err));
            output_set_warning(o, "the rename was refused: %s", strerror(err));
            output_report_warning(o);
            return APSP_OK; /* close_all removes the temporary file */
        }
    }
    if (err)
        return fail(error, APSP_ERR_OUTPUT, "%s: cannot move the output into place: %s", o->path,
                    strerror(err));
    o->temp_named = 0;
    if ((err = dir_sync(o->dir_fd)) != 0)
        return fail(error, APSP_ERR_OUTPUT,
                    "%s: the output is in place, but syncing its "
                    "directory failed: %s",
                    o->path, strerror(err));
    return APSP_OK;
}

/* In place, from a temporary copy: its bytes over the target opened at the start. */
static apsp_status copy_in_place(apsp_output *o, apsp_error *error) {
    int err = copy_into(o, o->target_fd);
    if (!err)
        return APSP_OK;
    if (err == ENOSPC || err == EDQUOT)
        return fail(error, APSP_ERR_OUTPUT,
                    "%s: no room to write the output over it: %s; the "
                    "old output is kept",
                    o->path, strerror(err));
    return fail(error, APSP_ERR_OUTPUT, "%s: writing the output over it failed: %s", o->path,
                output_error_text(err));
}

/* Whether the file still holds the whole output. Until the commit, whoever may open
 * /proc/PID/fd/N (this user, root) can truncate it: a rename would then put a short file in
 * place of the old one or, where later rows grew it back, one with a hole of zeros. Holes are
 * looked for where the room was reserved on a local file system (output_mappable), where apsp
 * wrote every byte and a hole can only be a truncation's; elsewhere a file system may keep
 * written zeros as a hole (ZFS with compression). */
static apsp_status check_whole(const apsp_output *o, apsp_error *error) {
    struct stat st;
    if (fstat(o->fd, &st) != 0)
        return fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", o->path,
                    strerror(errno));
    off_t hole = (uint64_t)st.st_size == o->length && room_mappable(&o->room)
                     ? lseek(o->fd, 0, SEEK_HOLE)
                     : st.st_size;
    if ((uint64_t)st.st_size == o->length && (hole < 0 || (uint64_t)hole >= o->length))
        return APSP_OK;
    char detail[96];
    if ((uint64_t)st.st_size != o->length)
        snprintf(detail, sizeof detail, "%llu of its %llu bytes left",
                 (unsigned long long)st.st_size, (unsigned long long)o->length);
    else
        snprintf(detail, sizeof detail, "emptied from byte %lld", (long long)hole);
    return fail(error, APSP_ERR_OUTPUT,
                "%s: writing the output failed: another process truncated the file while it was "
                "written (%s)%s",
                o->path, detail, output_staged(o) ? "; the old output is kept" : "");
}

/* Whether a named temporary file's name still names the file written: whoever may write the
 * directory may put another entry there (a link to a file of the right length), which the
 * rename would move over the target. */
static apsp_status check_named(const apsp_output *o, apsp_error *error) {
    struct stat written, named;
    if (o->mode != MODE_REPLACE || o->unnamed || !o->temp_named)
        return APSP_OK;
    if (fstat(o->fd, &written) == 0 &&
        fstatat(o->dir_fd, output_temp_name(o), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        written.st_dev == named.st_dev && written.st_ino == named.st_ino)
        return APSP_OK;
    return fail(error, APSP_ERR_OUTPUT,
                "%s: writing the output failed: another process put something else in the place "
                "of the temporary file %s; the old output is kept",
                o->path, o->temp_path);
}

/* Syncs and puts the file into place (a stream: flushes and closes it). */
static apsp_status complete(apsp_output *o, apsp_error *error) {
    apsp_status status = APSP_OK;
    fault_pause("commit");
    output_unmap(o); /* the rows are in its pages: fsync takes them from there */
    if (o->mode == MODE_DIRECT) {
        int write_failed = ferror(o->stream), close_failed = fclose(o->stream);
        int e = errno;
        o->stream = NULL;
        if (write_failed || close_failed)
            status = fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", o->path,
                          strerror(e));
    } else if (fsync(o->fd) != 0) {
        status = fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", o->path,
                      strerror(errno));
    } else {
        status = check_whole(o, error);
        if (status == APSP_OK)
            status = check_named(o, error);
        int err = status == APSP_OK && o->shared ? output_give_mode(o) : 0;
        if (err)
            status = fail(error, APSP_ERR_OUTPUT, "%s: cannot give the output its mode: %s",
                          o->path, strerror(err));
        if (status == APSP_OK && o->mode == MODE_REPLACE)
            status = replace_target(o, error);
        else if (status == APSP_OK && o->target_fd >= 0)
            status = copy_in_place(o, error);
    }
    return status;
}

apsp_status output_finish(apsp_output *o, apsp_error *error) {
    apsp_status status = output_room(o, error);
    if (status == APSP_OK)
        status = complete(o, error);
    apsp_output_abort(o);
    return status;
}
