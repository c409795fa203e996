/* The input file (input.h). */
#include "formats/input.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/statfs.h>
#endif

/* procfs and sysfs make a file's bytes when it is read: its size says 0 (/proc/PID/cmdline) or a
 * page (a sysfs attribute), not what a read brings. */
static int size_is_made_up(int fd) {
#ifdef __linux__
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC);
#else
    (void)fd;
    return 0;
#endif
}

/* Whether the open file fd (st: its fstat) is a regular file whose size is the bytes it holds:
 * not an empty one, nor one of procfs or sysfs, whose sizes (0, a page) are made up. Every other
 * input is read as a stream, to its end. */
static int input_size_known(int fd, const struct stat *st) {
    return S_ISREG(st->st_mode) && st->st_size > 0 && !size_is_made_up(fd);
}

/* A regular file that starts as a compressed stream is read decompressed, as a stream (its size is
 * not its bytes'); a codec missing from this build is refused at once. pread leaves the
 * position at 0 for the stream's own look at the first bytes. */
static apsp_status regular_compressed(input_file *in, apsp_error *error) {
    unsigned char head[MAGIC_BYTES];
    ssize_t n = input_pread(in, head, sizeof head, 0);
    const struct codec *c = n > 0 ? codec_of_magic(head, (size_t)n) : NULL;
    char why[200];
    if (c && !codec_built(c, in->name, why, sizeof why))
        return fail(error, APSP_ERR_INPUT, "%s", why);
    if (c)
        in->regular = 0, in->size = 0;
    return APSP_OK;
}

apsp_status input_open(const char *path, input_file *in, apsp_error *error) {
    *in = (input_file){.name = path, .fd = -1};
    if (strcmp(path, "-") == 0) {
        in->name = "stdin";
        in->fd = STDIN_FILENO;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0)
            return fail(error, APSP_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
        in->owned = 1;
    }
    struct stat st;
    if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        input_close(in);
        return fail(error, APSP_ERR_INPUT, "%s: is a directory, not an input file", path);
    }
    /* Standard input is read as a stream even when it is a file: its position need not be 0,
     * which the positioned reads of a regular file assume. So is a file whose size is not its
     * bytes' (an empty file reads the same either way). */
    if (in->owned && fstat(in->fd, &st) == 0 && input_size_known(in->fd, &st)) {
        in->regular = 1;
        in->size = (uint64_t)st.st_size;
    }
    apsp_status status = in->regular ? regular_compressed(in, error) : APSP_OK;
    if (status == APSP_OK && !in->regular && !(in->stream = input_stream_create()))
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory opening %s", in->name);
    if (status != APSP_OK)
        input_close(in);
    return status;
}

void input_close(input_file *in) {
    if (in->owned && in->fd >= 0)
        close(in->fd);
    input_stream_destroy(in->stream);
    in->stream = NULL;
    in->fd = -1;
    in->owned = 0;
}

ssize_t input_read(const input_file *in, void *buf, size_t size) {
    return in->stream ? input_stream_read(in->stream, in->fd, buf, size)
                      : fd_read_full(in->fd, buf, size, -1);
}

ssize_t input_pread(const input_file *in, void *buf, size_t size, uint64_t offset) {
    return fd_read_full(in->fd, buf, size, (int64_t)offset);
}

apsp_status input_read_error(const input_file *in, int err, apsp_error *error) {
    const char *problem = in->stream ? input_stream_problem(in->stream) : NULL;
    if (problem)
        return fail(error, APSP_ERR_INPUT, "%s: %s", in->name, problem);
    return fail(error, APSP_ERR_INPUT, "%s: read error: %s", in->name, strerror(err));
}
