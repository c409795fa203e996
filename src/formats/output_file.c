#include "formats/output_file.h"
#include "base/error.h"
#include "base/fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct apsp_output {
    char *path;
    char *temp_path;
    FILE *stream;
    char *buffer;
};

enum { STREAM_BUFFER_BYTES = 4 << 20 };

static void output_free(apsp_output *output) {
    free(output->path);
    free(output->temp_path);
    free(output->buffer);
    free(output);
}

/* "dir/name" -> "dir/.name.apsp-XXXXXX"; "name" -> ".name.apsp-XXXXXX". */
static char *temp_template(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    const char *base = path + dir_len;
    size_t size = strlen(path) + sizeof ".apsp-XXXXXX" + 1;
    char *t = apsp_malloc(size);
    if (t)
        snprintf(t, size, "%.*s.%s.apsp-XXXXXX", (int)dir_len, path, base);
    return t;
}

static mode_t current_umask(void) {
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

/* /dev/null, a pipe or a terminal: written directly. */
static int open_special(apsp_output *o) {
    o->stream = fopen(o->path, "wb");
    return o->stream ? 0 : -1;
}

/* A regular file (or none yet): a temporary file beside it, with the mode fopen() would give. */
static int open_temporary(apsp_output *o) {
    int fd = mkstemp(o->temp_path);
    if (fd < 0)
        return -1;
    if (fchmod(fd, 0666 & ~current_umask()) == 0 && (o->stream = fdopen(fd, "wb")))
        return 0;
    int e = errno;
    close(fd);
    unlink(o->temp_path);
    errno = e;
    return -1;
}

apsp_status apsp_output_open(const char *path, apsp_output **out, apsp_error *error) {
    *out = NULL;
    struct stat st;
    if (path[0] == '\0')
        return fail(error, APSP_ERR_OUTPUT, "the output path is empty");
    if (path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return fail(error, APSP_ERR_OUTPUT, "%s: the output path is a directory", path);
    /* /dev/null, a pipe or a terminal is written directly: renaming a file over it would
     * replace the device (as root) rather than write to it. */
    int special = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    apsp_output *o = apsp_calloc(1, sizeof *o);
    if (o) {
        o->path = apsp_strdup(path);
        o->temp_path = special ? NULL : temp_template(path);
        o->buffer = apsp_malloc(STREAM_BUFFER_BYTES);
    }
    apsp_status status = APSP_OK;
    if (!o || !o->path || (!special && !o->temp_path) || !o->buffer)
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory opening the output");
    else if ((special ? open_special(o) : open_temporary(o)) != 0)
        status = fail(error, APSP_ERR_OUTPUT, "%s: %s: %s", path,
                      special ? "cannot open for writing" : "cannot create the output file there",
                      strerror(errno));
    if (status != APSP_OK) {
        if (o)
            output_free(o);
        return status;
    }
    setvbuf(o->stream, o->buffer, _IOFBF, STREAM_BUFFER_BYTES);
    *out = o;
    return APSP_OK;
}

FILE *output_stream(apsp_output *output) {
    return output->stream;
}

int output_file_fd(apsp_output *output) {
    if (!output->temp_path || fflush(output->stream) != 0)
        return -1;
    return fileno(output->stream);
}

const char *output_target_path(const apsp_output *output) {
    return output->path;
}

const char *apsp_output_temp_path(const apsp_output *output) {
    return output->temp_path;
}

void apsp_output_abort(apsp_output *output) {
    if (!output)
        return;
    if (output->stream)
        fclose(output->stream);
    if (output->temp_path)
        unlink(output->temp_path);
    output_free(output);
}

apsp_status output_finish(apsp_output *output, apsp_error *error) {
    int write_failed = ferror(output->stream);
    int close_failed = fclose(output->stream);
    int e = errno;
    output->stream = NULL;
    apsp_status status = APSP_OK;
    if (write_failed || close_failed)
        status = fail(error, APSP_ERR_OUTPUT, "%s: writing the output failed: %s", output->path,
                      strerror(e));
    else if (output->temp_path && rename(output->temp_path, output->path) != 0)
        status = fail(error, APSP_ERR_OUTPUT, "%s: cannot move the output into place: %s",
                      output->path, strerror(errno));
    if (status != APSP_OK) {
        apsp_output_abort(output);
        return status;
    }
    output_free(output);
    return APSP_OK;
}
