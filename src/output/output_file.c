/* The output file (output_file.h says what it promises). apsp_output_open decides how OUTPUT is
 * written, before any computing:
 *   direct    not a regular file (a pipe, a terminal, /dev/null, /proc/self/fd/N): written
 *             through, since renaming a file over it would replace the device or the link;
 *   replace   a regular file or none: a temporary file in the target's directory, linked or
 *             renamed over the target at commit;
 *   in place  the target itself, only where a rename cannot work: its directory refuses a new
 *             file, it belongs to another user who owns its sticky directory, or it has several
 *             hard links (a rename would leave the other names with the old bytes). The output
 *             still goes to a temporary copy first (beside the target, else in /tmp), copied
 *             over the target at commit, so that a failed run leaves the old bytes; only where
 *             no copy can be made anywhere is the target written directly. The handle then
 *             carries a warning for the caller (apsp_output_set_log).
 * Symbolic links are followed to their final target, which is the file replaced: the link stays
 * a link. In a sticky directory that others may write, a link or a file of another user (neither
 * this one nor the directory's owner) is refused, as the kernel refuses it (path_resolve).
 * output_temporary.c makes the temporary file, output_commit.c puts the finished file into
 * place. */
#define _GNU_SOURCE /* O_TMPFILE, O_PATH */
#include "output/output_file.h"
#include "output/output_handle.h"
#include "output/output_map.h"
#include "output/output_path.h"
#include "output/output_room.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { STREAM_BUFFER_BYTES = 4 << 20 };

/* Where a file written in place gets its temporary copy when its own directory refuses one.
 * The library reads no environment ($TMPDIR); the copy is unnamed and 0600, so a directory that
 * everyone may write into is safe. */
static const char elsewhere_dir[] = "/tmp";

static void output_free(apsp_output *o) {
    free(o->path);
    free(o->target);
    free(o->temp_path);
    free(o->buffer);
    free(o);
}

void output_set_warning(apsp_output *o, const char *format, ...) {
    int n =
        snprintf(o->warning, sizeof o->warning, "%s: written in place, not replaced: ", o->path);
    if (n < 0 || (size_t)n >= sizeof o->warning)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(o->warning + n, sizeof o->warning - (size_t)n, format, args);
    va_end(args);
}

void output_report_warning(apsp_output *o) {
    if (o->warning[0] && !o->warned && o->log) {
        o->warned = 1;
        o->log(o->log_context, APSP_LOG_INFO, o->warning);
    }
}

/* The target, opened in the directory held since the start without following a link, and
 * only if it is still the file found there at open (device and inode): a link or another file
 * put in its place by someone who may write to that directory is refused, never written
 * through. No O_CREAT: in a sticky directory with fs.protected_regular, even root may not
 * O_CREAT-open a file of another user. No O_TRUNC: the old bytes stay until the caller says.
 * O_NONBLOCK: a FIFO put there fails at once instead of waiting for a reader. Returns the
 * descriptor, or -1 with *err an errno value or TARGET_CHANGED. */
int output_open_target(const apsp_output *o, int *err) {
    int fd = openat(o->dir_fd, o->name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *err = errno == ELOOP || errno == ENOENT || errno == ENXIO ? TARGET_CHANGED : errno;
        return -1;
    }
    struct stat now;
    if (!o->target_exists || fstat(fd, &now) != 0 || now.st_dev != o->target_dev ||
        now.st_ino != o->target_ino) {
        close(fd);
        *err = TARGET_CHANGED;
        return -1;
    }
    return fd;
}

/* The target, opened now (so that one this process may not write fails before the solve), and
 * its temporary copy in `dir`, its directory; NULL, or a copy that cannot be made there: one
 * elsewhere, at output_begin. Returns 0 or an errno value. */
static int open_in_place(apsp_output *o, const char *dir) {
    int err = 0;
    o->mode = MODE_IN_PLACE;
    o->target_fd = output_open_target(o, &err);
    if (o->target_fd >= 0 && dir && output_create_temporary(o, dir) != 0)
        output_drop_temporary(o);
    return err;
}

/* In place without a copy beside the target (its directory refuses new files): an unnamed one
 * in elsewhere_dir, which vanishes with the process. Where none can be made there, or it lacks
 * the room, the target itself is written, and the caller is told what that risks. */
static void stage_elsewhere(apsp_output *o, uint64_t bytes) {
    int fd = -1, err = EOPNOTSUPP;
#ifdef O_TMPFILE
    fd = open(elsewhere_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    err = fd < 0 ? errno : room_visible(fd, bytes) ? 0 : ENOSPC;
#endif
    if (!err) {
        o->fd = fd;
        o->unnamed = 1;
        return;
    }
    if (fd >= 0)
        close(fd);
    o->fd = o->target_fd;
    o->target_fd = -1;
    output_set_warning(o,
                       "no temporary copy could be made in %s (%s): a failure while writing "
                       "leaves it partial",
                       elsewhere_dir, strerror(err));
    o->warned = 0;
    output_report_warning(o);
}

const char *output_error_text(int err) {
    if (err == TARGET_BUSY)
        return "another process is writing this file in place right now; run the two one after "
               "the other";
    return err == TARGET_CHANGED ? "it is no longer the file that was there at the start (a link "
                                   "or another file was put in its place)"
                                 : strerror(err);
}

/* In a sticky directory (/tmp) only the owner of a file or of the directory, or a process with
 * CAP_FOWNER (taken to be root), may rename over it: the rename would fail after the whole
 * computation. (A file of neither this user nor the directory's owner, where others may write,
 * was refused already: path_resolve.) */
static int rename_forbidden(int dir_fd, const struct stat *target) {
    struct stat d;
    uid_t me = geteuid();
    return me != 0 && target->st_uid != me && fstat(dir_fd, &d) == 0 && (d.st_mode & S_ISVTX) &&
           d.st_uid != me;
}

/* Which file the target is, in its directory (dir_fd), held open since path_resolve checked it:
 * a directory this process may write into but not list is held as a path (O_PATH), enough for
 * the *at() calls, not for fsync. */
static void hold_target(apsp_output *o, int exists, const struct stat *st) {
    o->name = o->target + path_dir_length(o->target);
    o->target_exists = exists;
    o->target_dev = exists ? st->st_dev : 0;
    o->target_ino = exists ? st->st_ino : 0;
}

/* A regular file or none: replaced where that can work, else written in place (the header
 * comment). Returns 0 or an errno value. */
static int open_regular(apsp_output *o, int exists, const struct stat *st) {
    char dir[PATH_MAX];
    int err = path_dir(o->target, dir);
    if (err)
        return err;
    hold_target(o, exists, st);
    /* Where a rename cannot replace the target: a shared output says why and stops. */
    char why[64] = "";
    if (exists && st->st_nlink > 1)
        snprintf(why, sizeof why, "it has %lu hard links", (unsigned long)st->st_nlink);
    else if (exists && rename_forbidden(o->dir_fd, st))
        snprintf(why, sizeof why, "it belongs to the owner of its sticky directory");
    if (why[0] && o->shared) {
        snprintf(o->warning, sizeof o->warning, "%s", why);
        return NOT_RENAMED;
    }
    if (why[0]) {
        output_set_warning(o, "%s%s", why, st->st_nlink > 1 ? ", which all keep the result" : "");
        err = open_in_place(o, dir);
    } else if ((err = output_open_temporary(o, dir, exists, st)) != 0 && exists && !o->shared &&
               (err == EACCES || err == EPERM) && o->fd < 0) {
        output_set_warning(o, "cannot create a temporary file in %s: %s", dir, strerror(err));
        output_drop_temporary(o);
        err = open_in_place(o, NULL);
    }
    return err;
}

/* /dev/null, a pipe, a terminal, /proc/self/fd/N: written through the path as given; "-",
 * standard output, through a copy of its descriptor (which stays open for the caller). */
static int open_direct(apsp_output *o, int standard_output) {
    o->mode = MODE_DIRECT;
    o->buffer = apsp_malloc(STREAM_BUFFER_BYTES);
    if (!o->buffer)
        return ENOMEM;
    if (standard_output) {
        int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
        o->stream = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!o->stream && fd >= 0) {
            int err = errno;
            close(fd);
            errno = err;
        }
    } else {
        o->stream = fopen(o->path, "wbe");
    }
    if (!o->stream)
        return errno;
    setvbuf(o->stream, o->buffer, _IOFBF, STREAM_BUFFER_BYTES);
    return 0;
}

static int is_directory(const char *path) {
    struct stat st;
    return path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* Closes whatever open_* left open; a named temporary file is removed. */
static void close_all(apsp_output *o) {
    room_wait(&o->room); /* fallocate holds the descriptor */
    output_unmap(o);
    if (o->stream)
        fclose(o->stream);
    else if (o->fd >= 0)
        close(o->fd);
    o->stream = NULL;
    output_unlock_direct(o); /* closing fd releases it */
    o->fd = -1;
    if (o->target_fd >= 0)
        close(o->target_fd);
    o->target_fd = -1;
    if (o->temp_named)
        unlinkat(o->dir_fd, output_temp_name(o), 0);
    o->temp_named = 0;
    if (o->dir_fd >= 0)
        close(o->dir_fd);
    o->dir_fd = -1;
}

/* What open_output refuses, the handle then freed. */
static apsp_status discard(apsp_output *o, apsp_status status) {
    close_all(o);
    output_free(o);
    return status;
}

/* The path itself, or "the symbolic link X" / "X" met on the way from it. */
static void name_entry(char *buf, size_t size, const char *path, const char *entry,
                       const char *kind) {
    if (strcmp(path, entry) == 0)
        snprintf(buf, size, "this %s", kind);
    else
        snprintf(buf, size, "the %s %.300s", kind, entry);
}

/* path_resolve's refusal of `path` (the kernel's rule for sticky directories; `target` what it
 * resolved to), and how to write there on purpose: name the file a link names, or have a file's
 * owner remove it. */
static apsp_status refused(const char *path, const char *target, int err, const path_found *f,
                           apsp_error *error) {
    char entry[340];
    int link = err == LINK_NOT_FOLLOWED;
    name_entry(entry, sizeof entry, path, link ? f->link : target, link ? "symbolic link" : "file");
    return fail(error, APSP_ERR_OUTPUT,
                "%.300s: %s belongs to uid %u, neither this user nor the owner of its sticky "
                "directory (mode %04o, writable by other users): %s; %s%.300s",
                path, entry, (unsigned)f->st.st_uid, (unsigned)(f->dir.st_mode & 07777),
                link ? "not followed, as the kernel's fs.protected_symlinks would not"
                     : "not opened for writing, as the kernel's fs.protected_regular would not",
                link ? "to write to the file it names on purpose, name that file directly: "
                     : "its owner must remove it, or write elsewhere",
                link ? target : "");
}

static apsp_status open_failed(apsp_output *o, int err, apsp_error *error) {
    apsp_status status =
        err == ENOMEM        ? fail(error, APSP_ERR_NO_MEMORY, "out of memory opening the output")
        : err == NOT_RENAMED ? fail(error, APSP_ERR_OUTPUT,
                                    "%s: writers in several processes need a regular file that a "
                                    "rename can replace%s%s",
                                    o->path, o->warning[0] ? ": " : "", o->warning)
                             : fail(error, APSP_ERR_OUTPUT, "%s: %s: %s", o->path,
                                    o->mode == MODE_REPLACE ? "cannot create the output file there"
                                                            : "cannot open for writing",
                                    output_error_text(err));
    return discard(o, status);
}

/* "-": standard output, named "stdout" in messages. */
static apsp_status open_standard_output(apsp_output **out, apsp_error *error) {
    apsp_output *o = apsp_calloc(1, sizeof *o);
    if (!o)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory opening the output");
    o->fd = -1;
    o->target_fd = -1;
    o->dir_fd = -1;
    o->path = apsp_strdup("stdout");
    o->target = apsp_strdup("stdout");
    int err = o->path && o->target ? open_direct(o, 1) : ENOMEM;
    if (err)
        return open_failed(o, err, error);
    *out = o;
    return APSP_OK;
}

/* apsp_output_open and output_open_shared: "-" is standard output only for the former. */
static apsp_status open_output(const char *path, int shared, apsp_output **out, apsp_error *error) {
    *out = NULL;
    if (path[0] == '\0')
        return fail(error, APSP_ERR_OUTPUT, "the output path is empty");
    if (strcmp(path, "-") == 0 && !shared)
        return open_standard_output(out, error);
    if (is_directory(path))
        return fail(error, APSP_ERR_OUTPUT, "%s: the output path is a directory", path);
    apsp_output *o = apsp_calloc(1, sizeof *o);
    if (!o)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory opening the output");
    o->fd = -1;
    o->target_fd = -1;
    o->dir_fd = -1;
    o->mode = MODE_REPLACE; /* what a failure to create the file is called */
    o->shared = shared;
    o->path = apsp_strdup(path);
    o->target = apsp_strdup(path);
    if (!o->path || !o->target)
        return open_failed(o, ENOMEM, error);
    path_found found;
    int err = path_resolve(&o->target, &found);
    o->dir_fd = found.dir_fd;
    if (err == LINK_NOT_FOLLOWED || err == FOREIGN_FILE) {
        apsp_status status = refused(o->path, o->target, err, &found, error);
        free(found.link);
        return discard(o, status);
    }
    int exists = found.exists;
    const struct stat *st = &found.st;
    if (!err && (is_directory(o->target) || (exists && S_ISDIR(st->st_mode))))
        err = EISDIR;
    if (exists)
        o->target_stat = *st;
    int direct = found.via_proc || (exists && !S_ISREG(st->st_mode));
    if (!err && direct && shared)
        err = NOT_RENAMED;
    else if (!err)
        err = direct ? open_direct(o, 0) : open_regular(o, exists, st);
    if (err)
        return open_failed(o, err, error);
    *out = o;
    return APSP_OK;
}

apsp_status apsp_output_open(const char *path, apsp_output **out, apsp_error *error) {
    return open_output(path, 0, out, error);
}

apsp_status output_open_shared(const char *path, apsp_output **out, apsp_error *error) {
    return open_output(path, 1, out, error);
}

void apsp_output_set_log(apsp_output *output, apsp_log_fn log, void *context) {
    output->log = log;
    output->log_context = context;
    output_report_warning(output);
}

void apsp_output_set_threads(apsp_output *output, int threads) {
    output->threads = threads_of(threads);
}

unsigned output_threads(const apsp_output *output) {
    return output->threads;
}

FILE *output_stream(apsp_output *output) {
    return output->stream;
}

int output_file_fd(apsp_output *output) {
    return output->fd;
}

const char *output_target_path(const apsp_output *output) {
    return output->path;
}

apsp_status apsp_output_target(const char *path, char *target, size_t size, apsp_error *error) {
    char *resolved = apsp_strdup(path);
    if (!resolved)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory resolving the output path");
    path_found found;
    int err = path_resolve(&resolved, &found);
    if (found.dir_fd >= 0)
        close(found.dir_fd);
    if (!err && (size_t)snprintf(target, size, "%s", resolved) >= size)
        err = ENAMETOOLONG;
    apsp_status status = err == LINK_NOT_FOLLOWED || err == FOREIGN_FILE
                             ? refused(path, resolved, err, &found, error)
                         : err ? fail(error, APSP_ERR_OUTPUT, "%s: %s", path, strerror(err))
                               : APSP_OK;
    free(found.link);
    free(resolved);
    return status;
}

const char *apsp_output_temp_path(const apsp_output *output) {
    return output->mode == MODE_REPLACE || output->temp_named ? output->temp_path : NULL;
}

void apsp_output_abort(apsp_output *output) {
    if (!output)
        return;
    close_all(output);
    output_free(output);
}

static apsp_status room_failed(const apsp_output *o, int err, apsp_error *error) {
    if (err != ENOSPC && err != EDQUOT)
        return fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", o->path,
                    strerror(err));
    char size[32];
    format_bytes(o->room.bytes, size, sizeof size);
    return fail(error, APSP_ERR_OUTPUT, "%s: no room for the %s output%s: %s", o->path, size,
                output_staged(o) && o->target_exists ? " beside the existing file" : "",
                strerror(err));
}

int output_staged(const apsp_output *o) {
    return o->mode == MODE_REPLACE || o->target_fd >= 0;
}

/* Room for a temporary copy of `bytes` and, at commit, for the target to grow to that length
 * (the copy goes over its old bytes): on one file system or two. */
static int room_for_copy(const apsp_output *o, uint64_t bytes) {
    struct stat copy, target;
    if (fstat(o->fd, &copy) != 0 || fstat(o->target_fd, &target) != 0)
        return 1; /* unknown: fallocate will say, and the commit's reservation */
    uint64_t old = (uint64_t)target.st_size, growth = bytes > old ? bytes - old : 0;
    if (copy.st_dev == target.st_dev)
        return room_visible(o->fd, bytes + growth);
    return room_visible(o->fd, bytes) && room_visible(o->target_fd, growth);
}

apsp_status output_begin(apsp_output *o, uint64_t bytes, apsp_error *error) {
    o->length = bytes;
    if (o->mode == MODE_DIRECT)
        return APSP_OK;
    if (o->mode == MODE_IN_PLACE && o->fd < 0)
        stage_elsewhere(o, bytes);
    /* In place without a copy, the old bytes go only now, when the new ones are ready; and their
     * room with them, which the space checks below then count. The target is locked first, for
     * the whole run: a second writer is refused rather than left waiting, which could wait for
     * ever on a run that waits for it in turn (output_lock.c). */
    int err = output_staged(o) ? 0 : output_lock_direct(o);
    if (!err && !output_staged(o) && ftruncate(o->fd, 0) != 0)
        err = errno;
    if (err)
        return fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", o->path,
                    output_error_text(err));
    o->room.bytes = bytes; /* for the message */
    /* What the file system shows free fails a full disk at once, before the solve; fallocate
     * (0.9 s for 6.4 GB on tmpfs, which zeroes every page) then runs beside the solve. */
    if (!(o->target_fd >= 0 ? room_for_copy(o, bytes) : room_visible(o->fd, bytes)))
        return room_failed(o, ENOSPC, error);
    room_request(&o->room, o->fd, bytes);
    return APSP_OK;
}

void output_set_length(apsp_output *o, uint64_t bytes) {
    o->length = bytes;
}

int output_mappable(const apsp_output *o) {
    return room_mappable(&o->room);
}

apsp_status output_room(apsp_output *o, apsp_error *error) {
    int err = room_wait(&o->room);
    return err ? room_failed(o, err, error) : APSP_OK;
}
