/* The output file (output_file.h says what it promises). apsp_output_open decides how OUTPUT is
 * written, before any computing:
 *   direct    not a regular file (a pipe, a terminal, /dev/null, /proc/self/fd/N): written
 *             through, since renaming a file over it would replace the device or the link;
 *   replace   a regular file or none: a temporary file in the target's directory, linked or
 *             renamed over the target at commit;
 *   in place  the target itself, only where a rename cannot work: its directory refuses a new
 *             file, it belongs to another user in a sticky directory, or it has several hard
 *             links (a rename would leave the other names with the old bytes). The handle then
 *             carries a warning for the caller (apsp_output_set_log).
 * Symbolic links are followed to their final target, which is the file replaced: the link stays
 * a link. */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp, fallocate */
#include "formats/output_file.h"
#include "formats/output_path.h"
#include "formats/output_room.h"
#include "base/error.h"
#include "base/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef enum output_mode { MODE_DIRECT, MODE_REPLACE, MODE_IN_PLACE } output_mode;

struct apsp_output {
    char *path;      /* as the caller gave it, for messages */
    char *target;    /* the file that `path` names after its symbolic links */
    char *temp_path; /* MODE_REPLACE: the temporary file's name (an unnamed file's at commit) */
    output_mode mode;
    int fd;            /* MODE_REPLACE, MODE_IN_PLACE: the file written; -1 otherwise */
    int unnamed;       /* fd is an O_TMPFILE file, which vanishes with the process */
    int temp_named;    /* temp_path names fd's file now: remove it on failure */
    int target_exists; /* at open: commit may link a new file straight in */
    FILE *stream;      /* MODE_DIRECT */
    char *buffer;
    char warning[512]; /* why OUTPUT is written in place; "" when it is not */
    int warned;
    apsp_log_fn log;
    void *log_context;
    file_room room; /* output_begin's request for the file's room (output_room.h) */
};

enum {
    STREAM_BUFFER_BYTES = 4 << 20,
    TEMP_SUFFIX_BYTES = 13, /* "." + ".apsp-XXXXXX" around the target's name */
    TEMP_NAME_TRIES = 100,  /* names taken by someone else before giving up */
};

static void output_free(apsp_output *o) {
    free(o->path);
    free(o->target);
    free(o->temp_path);
    free(o->buffer);
    free(o);
}

static void random_suffix(char *x) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static atomic_uint counter; /* outputs opened on several threads at once differ too */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t v = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^
                 ((uint64_t)atomic_fetch_add(&counter, 1) * 0x9E3779B97F4A7C15u);
    for (int i = 0; i < 6; i++, v /= 62)
        x[i] = digits[v % 62];
}

/* "dir/name" -> "dir/.name.apsp-XXXXXX", the name cut short where the whole would pass the
 * file system's limit on a name (NAME_MAX, 255 bytes on most). */
static char *temp_template(const char *target, const char *dir) {
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
static int open_unnamed(const char *dir) {
#ifdef O_TMPFILE
    if (access("/proc/self/fd", X_OK) == 0) {
        int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666); /* the umask applies */
        if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
            return fd; /* EISDIR, EINVAL: a kernel or file system without O_TMPFILE */
    }
#endif
    (void)dir;
    errno = EOPNOTSUPP;
    return -1;
}

/* The temporary file in the target's directory. Returns 0 or an errno value. */
static int open_temporary(apsp_output *o, const char *dir, int exists, const struct stat *st) {
    o->temp_path = temp_template(o->target, dir);
    if (!o->temp_path)
        return ENOMEM;
    char *x = o->temp_path + strlen(o->temp_path) - 6;
    o->fd = open_unnamed(dir);
    if (o->fd >= 0) {
        o->unnamed = 1;
        random_suffix(x); /* the name it gets for an instant at commit */
    } else if (errno == EOPNOTSUPP) {
        o->fd = mkostemp(o->temp_path, O_CLOEXEC);
        o->temp_named = o->fd >= 0;
    }
    if (o->fd < 0)
        return errno;
    if (exists)
        return keep_attributes(o->fd, st);
    /* A new file gets the mode fopen() would give it; O_TMPFILE applied the umask already. */
    return o->unnamed || fchmod(o->fd, 0666 & ~current_umask()) == 0 ? 0 : errno;
}

static void set_warning(apsp_output *o, const char *format, ...) APSP_PRINTF(2, 3);

static void set_warning(apsp_output *o, const char *format, ...) {
    int n =
        snprintf(o->warning, sizeof o->warning, "%s: written in place, not replaced: ", o->path);
    if (n < 0 || (size_t)n >= sizeof o->warning)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(o->warning + n, sizeof o->warning - (size_t)n, format, args);
    va_end(args);
}

static void report_warning(apsp_output *o) {
    if (o->warning[0] && !o->warned && o->log) {
        o->warned = 1;
        o->log(o->log_context, APSP_LOG_INFO, o->warning);
    }
}

/* No O_CREAT: in a sticky directory with fs.protected_regular, even root may not O_CREAT-open a
 * file of another user. No O_TRUNC: the old bytes stay until commit. */
static int open_in_place(apsp_output *o) {
    o->fd = open(o->target, O_WRONLY | O_CLOEXEC);
    o->mode = MODE_IN_PLACE;
    return o->fd >= 0 ? 0 : errno;
}

/* In a sticky directory (/tmp) only the owner of a file or of the directory, or a process with
 * CAP_FOWNER (taken to be root), may rename over it: the rename would fail after the whole
 * computation. */
static int rename_forbidden(const char *dir, const struct stat *target) {
    struct stat d;
    uid_t me = geteuid();
    return me != 0 && target->st_uid != me && stat(dir, &d) == 0 && (d.st_mode & S_ISVTX) &&
           d.st_uid != me;
}

/* A regular file or none: replaced where that can work, else written in place (the header
 * comment). Returns 0 or an errno value. */
static int open_regular(apsp_output *o, int exists, const struct stat *st) {
    char dir[PATH_MAX];
    int err = path_dir(o->target, dir);
    if (err)
        return err;
    if (exists && st->st_nlink > 1) {
        set_warning(o, "it has %lu hard links, which all keep the result",
                    (unsigned long)st->st_nlink);
        err = open_in_place(o);
    } else if (exists && rename_forbidden(dir, st)) {
        set_warning(o, "it belongs to another user in a sticky directory");
        err = open_in_place(o);
    } else if ((err = open_temporary(o, dir, exists, st)) != 0 && exists &&
               (err == EACCES || err == EPERM) && o->fd < 0) {
        set_warning(o, "cannot create a temporary file in %s: %s", dir, strerror(err));
        free(o->temp_path);
        o->temp_path = NULL;
        err = open_in_place(o);
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
    if (o->stream)
        fclose(o->stream);
    else if (o->fd >= 0)
        close(o->fd);
    o->stream = NULL;
    o->fd = -1;
    if (o->temp_named)
        unlink(o->temp_path);
    o->temp_named = 0;
}

static apsp_status open_failed(apsp_output *o, int err, apsp_error *error) {
    apsp_status status = err == ENOMEM
                             ? fail(error, APSP_ERR_NO_MEMORY, "out of memory opening the output")
                             : fail(error, APSP_ERR_OUTPUT, "%s: %s: %s", o->path,
                                    o->mode == MODE_REPLACE ? "cannot create the output file there"
                                                            : "cannot open for writing",
                                    strerror(err));
    close_all(o);
    output_free(o);
    return status;
}

/* "-": standard output, named "stdout" in messages. */
static apsp_status open_standard_output(apsp_output **out, apsp_error *error) {
    apsp_output *o = apsp_calloc(1, sizeof *o);
    if (!o)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory opening the output");
    o->fd = -1;
    o->path = apsp_strdup("stdout");
    o->target = apsp_strdup("stdout");
    int err = o->path && o->target ? open_direct(o, 1) : ENOMEM;
    if (err)
        return open_failed(o, err, error);
    *out = o;
    return APSP_OK;
}

apsp_status apsp_output_open(const char *path, apsp_output **out, apsp_error *error) {
    *out = NULL;
    if (path[0] == '\0')
        return fail(error, APSP_ERR_OUTPUT, "the output path is empty");
    if (strcmp(path, "-") == 0)
        return open_standard_output(out, error);
    if (is_directory(path))
        return fail(error, APSP_ERR_OUTPUT, "%s: the output path is a directory", path);
    apsp_output *o = apsp_calloc(1, sizeof *o);
    if (!o)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory opening the output");
    o->fd = -1;
    o->mode = MODE_REPLACE; /* what a failure to create the file is called */
    o->path = apsp_strdup(path);
    o->target = apsp_strdup(path);
    if (!o->path || !o->target)
        return open_failed(o, ENOMEM, error);
    int exists, via_proc;
    struct stat st;
    int err = path_resolve(&o->target, &exists, &st, &via_proc);
    if (!err && (is_directory(o->target) || (exists && S_ISDIR(st.st_mode))))
        err = EISDIR;
    if (!err)
        err = via_proc || (exists && !S_ISREG(st.st_mode)) ? open_direct(o, 0)
                                                           : open_regular(o, exists, &st);
    if (err)
        return open_failed(o, err, error);
    o->target_exists = exists;
    *out = o;
    return APSP_OK;
}

void apsp_output_set_log(apsp_output *output, apsp_log_fn log, void *context) {
    output->log = log;
    output->log_context = context;
    report_warning(output);
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

const char *apsp_output_temp_path(const apsp_output *output) {
    return output->mode == MODE_REPLACE ? output->temp_path : NULL;
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
                o->mode == MODE_REPLACE && o->target_exists ? " beside the existing file" : "",
                strerror(err));
}

apsp_status output_begin(apsp_output *o, uint64_t bytes, apsp_error *error) {
    if (o->mode == MODE_DIRECT)
        return APSP_OK;
    /* In place, the old bytes go only now, when the new ones are ready; and their room with them,
     * which the space checks below then count. */
    if (o->mode == MODE_IN_PLACE && ftruncate(o->fd, 0) != 0)
        return fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", o->path,
                    strerror(errno));
    o->room.bytes = bytes; /* for the message */
    /* What the file system shows free fails a full disk at once, before the solve; fallocate
     * (0.9 s for 6.4 GB on tmpfs, which zeroes every page) then runs beside the solve. */
    if (!room_visible(o->fd, bytes))
        return room_failed(o, ENOSPC, error);
    room_request(&o->room, o->fd, bytes);
    return APSP_OK;
}

int output_mappable(const apsp_output *o) {
    return room_mappable(&o->room);
}

apsp_status output_room(apsp_output *o, apsp_error *error) {
    int err = room_wait(&o->room);
    return err ? room_failed(o, err, error) : APSP_OK;
}

static int link_unnamed(const apsp_output *o, const char *name) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
}

/* The unnamed file gets the target's name at once where there was no target (EEXIST: one
 * appeared since, which is replaced like any); else a temporary name to rename from. */
static int name_unnamed(apsp_output *o, int *done) {
    *done = 0;
    int err = EEXIST;
    if (!o->target_exists && (err = link_unnamed(o, o->target)) == 0)
        *done = 1;
    char *x = o->temp_path + strlen(o->temp_path) - 6;
    for (int tries = 0; err == EEXIST && tries < TEMP_NAME_TRIES; tries++) {
        err = link_unnamed(o, o->temp_path);
        if (err == EEXIST)
            random_suffix(x);
    }
    o->temp_named = !*done && !err;
    return err;
}

/* The rename was refused after the whole computation (a file of another user in a sticky
 * directory that the up-front check could not see, a mount point, a security module): the bytes
 * are copied over the target instead, as the course binary would have written them. */
static int copy_over_target(apsp_output *o) {
    int out = open(o->target, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (out < 0)
        return errno;
    struct stat st;
    int err = fstat(o->fd, &st) == 0 ? 0 : errno;
    off_t offset = 0;
    while (!err && offset < st.st_size) {
        ssize_t n = sendfile(out, o->fd, &offset, (size_t)(st.st_size - offset));
        if (n <= 0 && !(n < 0 && errno == EINTR))
            err = n < 0 ? errno : EIO;
    }
    if (!err && fsync(out) != 0)
        err = errno;
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
    if (!err && !done && rename(o->temp_path, o->target) != 0) {
        err = errno;
        if (rename_refused(err)) {
            int copy_err = copy_over_target(o);
            if (copy_err)
                return fail(error, APSP_ERR_OUTPUT,
                            "%s: cannot move the output into place (%s) nor write it there: %s",
                            o->path, strerror(err), strerror(copy_err));
            set_warning(o, "the rename was refused: %s", strerror(err));
            report_warning(o);
            return APSP_OK; /* close_all removes the temporary file */
        }
    }
    if (err)
        return fail(error, APSP_ERR_OUTPUT, "%s: cannot move the output into place: %s", o->path,
                    strerror(err));
    o->temp_named = 0;
    if ((err = path_sync_dir(o->target)) != 0)
        return fail(error, APSP_ERR_OUTPUT,
                    "%s: the output is in place, but syncing its "
                    "directory failed: %s",
                    o->path, strerror(err));
    return APSP_OK;
}

/* Syncs and puts the file into place (a stream: flushes and closes it). */
static apsp_status complete(apsp_output *o, apsp_error *error) {
    apsp_status status = APSP_OK;
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
    } else if (o->mode == MODE_REPLACE) {
        status = replace_target(o, error);
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
