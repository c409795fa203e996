/* The compiled program, cached on disk between runs (options->kernel_cache).
 *
 * Compiling fw.cl costs 1.6 s on NVIDIA's driver and 0.1-0.2 s on PoCL on every run; the driver's
 * binary (PTX on NVIDIA) loads in milliseconds. A cache file (base/cache_file.h) is named by a
 * digest of its key, the text of everything the binary depends on, and holds the key in full
 * and a SHA-256 of the binary, checked before the driver sees it; a file that does not match is
 * compiled again and replaced. Files are written to a temporary name and renamed, so a reader
 * never sees half of one. Nothing here can fail a solve: every failure falls back to compiling.
 *
 * Trust. A binary is code the driver runs as this user (PoCL's holds native code), and the key
 * and the digest are no secret. So the cache is read and written only where this user alone (or
 * root) can have written it: the directory, those above it and the file (base/private_files.h,
 * OpenSSH's StrictModes rule). Anywhere else the program is compiled, nothing is written there,
 * and one warning says why (APSP_LOG_WARNING: the apsp command shows it under -v).
 *
 * Crashes. A file that passes every check can still crash or hang the driver (one that a driver
 * bug or a failing disk made; the digest only proves it is what was written). So before the
 * driver sees a file, "<name>.loading" is created beside it, and it is removed when the device
 * closes (program_cache_close), whatever the solves did: only a process that died holding the
 * program leaves it. A run that finds the marker deletes the file and the marker and compiles
 * from source, and its store puts a fresh file in place: a crash does not happen twice in a row
 * from one file. Markers, not loading in a child process: a driver cannot be forked once
 * started, and a test load in another process would cost a driver start on every run.
 *
 * Concurrent runs. A marker is also what a run sees while another one uses the file (until that
 * one closes its device). It then deletes the file and compiles, which costs it a compile and
 * the other run nothing (its program is in its memory already); a marker that another run made
 * an instant earlier (O_EXCL) makes it compile without deleting anything. A marker names the
 * process that made it, so that another device of the same process loads the file too. */
#define _GNU_SOURCE
#include "opencl/program_cache.h"
#include "base/cache_file.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/private_files.h"
#include "base/sha256.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { KEY_BYTES = 4096, REASON_BYTES = 2 * PATH_MAX, MARKER_BYTES = 32 };

/* What asking for a binary maps: PoCL's 256 MiB scratch buffer, then the binary itself twice
 * (PoCL's copy and ours) and the cache file; 32 MiB covers apsp's kernels' few MiB. */
#define BINARY_ROOM (((uint64_t)256 + 32) << 20)

/* Everything the binary depends on, as text. */
static void make_key(const cl_device *d, const char *options, const char *source, char *key,
                     size_t room) {
    char platform[256], driver[128], version[128], source_hash[SHA256_HEX];
    cl_platform_id platform_id = NULL;
    clGetDeviceInfo(d->device, CL_DEVICE_PLATFORM, sizeof platform_id, &platform_id, NULL);
    cl_platform_string(platform_id, CL_PLATFORM_VERSION, platform, sizeof platform);
    cl_device_string(d->device, CL_DRIVER_VERSION, driver, sizeof driver);
    cl_device_string(d->device, CL_DEVICE_VERSION, version, sizeof version);
    sha256_hex(source, strlen(source), source_hash);
    snprintf(key, room,
             "apsp kernel cache 2\nplatform: %s\ndevice: %s\ndriver: %s\nversion: %s\n"
             "options: %s\nsource: %zu bytes, sha256 %s\n",
             platform, d->name, driver, version, options, strlen(source), source_hash);
}

/* The cache directory, resolved into `dir`, when it is trusted (made first when missing and
 * `make`): 1. Else 0; a refusal is logged once per device. */
static int trusted_dir(cl_device *d, int make, char *dir, size_t room) {
    const char *wanted = d->options->kernel_cache;
    char reason[REASON_BYTES];
    if (!wanted || !*wanted)
        return 0;
    const char *missing;
    private_dir_state state = private_dir_check(wanted, dir, room, &missing, reason, sizeof reason);
    if (state == PRIVATE_DIR_ABSENT && make) {
        fault_pause("cache-dir");
        if (private_dir_make(dir, missing) != 0) {
            log_message(d->options, APSP_LOG_DEBUG, "kernel cache: cannot make %s: %s", wanted,
                        strerror(errno));
            return 0;
        }
        state = private_dir_check(wanted, dir, room, &missing, reason, sizeof reason);
    }
    if (state == PRIVATE_DIR_REFUSED && !d->cache_refusal_logged) {
        d->cache_refusal_logged = 1;
        log_message(d->options, APSP_LOG_WARNING, "kernel cache %s not used: %s; compiling instead",
                    wanted, reason);
    }
    return state == PRIVATE_DIR_TRUSTED;
}

static void file_path(const char *dir, const char *key, const char *suffix, char *path,
                      size_t room) {
    char name[64];
    cache_file_name(key, suffix, name, sizeof name);
    snprintf(path, room, "%s/%s", dir, name);
}

/* A program from the binary, built (a binary must be built too), or NULL. */
static cl_program program_from(cl_device *d, const char *options, const unsigned char *binary,
                               size_t size) {
    cl_int err, binary_status = CL_SUCCESS;
    cl_program program =
        FAULT_CL_OBJECT(&err, clCreateProgramWithBinary(d->context, 1, &d->device, &size, &binary,
                                                        &binary_status, &err));
    if (err != CL_SUCCESS || binary_status != CL_SUCCESS) {
        if (program)
            clReleaseProgram(program);
        return NULL;
    }
    if (FAULT_CL_STATUS(clBuildProgram(program, 1, &d->device, options, NULL, NULL)) !=
        CL_SUCCESS) {
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

/* What a marker holds: the process that made it. Devices of one process may load one file (two
 * GPUs of one model): the second finds the first's marker and must not take it for a crash. */
static size_t marker_text(char text[MARKER_BYTES]) {
    return (size_t)snprintf(text, MARKER_BYTES, "%ld\n", (long)getpid());
}

static int marker_is_ours(const char *path) {
    char reason[REASON_BYTES], ours[MARKER_BYTES];
    size_t size = 0, length = marker_text(ours);
    unsigned char *text = private_file_read(path, MARKER_BYTES, &size, reason, sizeof reason);
    int same = text && size == length && memcmp(text, ours, size) == 0;
    free(text);
    return same;
}

/* A free slot for a marker of this device, or NULL. */
static char *free_marker_slot(cl_device *d) {
    for (size_t i = 0; i < CACHE_MARKERS; i++)
        if (!d->cache_markers[i][0])
            return d->cache_markers[i];
    return NULL;
}

/* The binary loaded under the marker `marker` (kept in a slot of the device until it closes),
 * or under this process's marker already there when `marker` is NULL; or NULL. */
static cl_program load_marked(cl_device *d, const char *options, const unsigned char *binary,
                              size_t size, const char *marker) {
    char *slot = marker ? free_marker_slot(d) : NULL, text[MARKER_BYTES];
    size_t length = marker_text(text);
    if (marker && (!slot || private_file_create(marker, text, length) != 0))
        return NULL; /* (EEXIST: another run is loading it this instant) */
    cl_program program = program_from(d, options, binary, size);
    if (program && slot)
        snprintf(slot, CACHE_PATH_BYTES, "%s", marker);
    else if (marker)
        unlink(marker);
    return program;
}

/* The program of the cache file `path` when the file can be trusted, or NULL. */
static cl_program load_file(cl_device *d, const char *options, const char *key, const char *path,
                            const char *marker) {
    char reason[REASON_BYTES];
    size_t size = 0, binary_size = 0;
    unsigned char *file =
        private_file_read(path, CACHE_FILE_MOST_BYTES, &size, reason, sizeof reason);
    const char *refusal = reason;
    const unsigned char *binary =
        file ? cache_file_binary(file, size, key, &binary_size, &refusal) : NULL;
    cl_program program = binary ? load_marked(d, options, binary, binary_size, marker) : NULL;
    if (!file && *reason)
        log_message(d->options, APSP_LOG_WARNING, "kernel cache: not used: %s; compiling instead",
                    reason);
    else if (file && !program)
        log_message(d->options, APSP_LOG_DEBUG, "kernel cache: %s not used (%s); rebuilding", path,
                    refusal ? refusal : "the driver refused it, or it is being loaded");
    free(file);
    return program;
}

cl_program program_cache_load(cl_device *d, const char *options, const char *source) {
    char dir[PATH_MAX], path[CACHE_PATH_BYTES], marker[CACHE_PATH_BYTES];
    char *key = trusted_dir(d, 0, dir, sizeof dir) ? apsp_malloc(KEY_BYTES) : NULL;
    if (!key)
        return NULL;
    make_key(d, options, source, key, KEY_BYTES);
    file_path(dir, key, ".clbin", path, sizeof path);
    file_path(dir, key, ".loading", marker, sizeof marker);
    cl_program program = NULL;
    struct stat st;
    int marked = lstat(marker, &st) == 0; /* (the directory is ours: no one else put it there) */
    if (marked && !marker_is_ours(marker)) {
        unlink(path);
        unlink(marker);
        log_message(d->options, APSP_LOG_WARNING,
                    "kernel cache: %s was in use by a run that did not finish (or is still "
                    "running): removed, compiling instead",
                    path);
    } else
        program = load_file(d, options, key, path, marked ? NULL : marker);
    if (program) /* the line a build logs, so the options show either way */
        log_message(d->options, APSP_LOG_DEBUG, "built for %s with '%s' (from the kernel cache %s)",
                    d->name, options, path);
    free(key);
    return program;
}

int program_binary_has_room(char *reason, size_t room) {
    uint64_t limit = 0;
    const char *which = "";
    uint64_t left = mapping_room(&limit, &which);
    if (left >= BINARY_ROOM)
        return 1;
    char cap[32], free_text[32], need[32];
    snprintf(reason, room, "%s of %s leaves %s, and the driver may need %s to give its binary",
             which, format_bytes(limit, cap, sizeof cap),
             format_bytes(left, free_text, sizeof free_text),
             format_bytes(BINARY_ROOM, need, sizeof need));
    return 0;
}

/* The built program's binary for the one device, or NULL. */
static unsigned char *program_binary(cl_program program, size_t *size) {
    unsigned char *binary = NULL;
    *size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL) !=
            CL_SUCCESS ||
        *size == 0 || *size > CACHE_FILE_MOST_BYTES || !(binary = apsp_malloc(*size)))
        return NULL;
    if (FAULT_CL_STATUS(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary,
                                         NULL)) != CL_SUCCESS) {
        free(binary);
        return NULL;
    }
    return binary;
}

void program_cache_store(cl_device *d, cl_program program, const char *options,
                         const char *source) {
    char dir[PATH_MAX], path[CACHE_PATH_BYTES], reason[REASON_BYTES];
    if (!program_binary_has_room(reason, sizeof reason)) {
        log_message(d->options, APSP_LOG_DEBUG, "kernel cache: nothing written: %s", reason);
        return;
    }
    char *key = trusted_dir(d, 1, dir, sizeof dir) ? apsp_malloc(KEY_BYTES) : NULL;
    size_t size = 0, file_size = 0;
    unsigned char *binary = key ? program_binary(program, &size) : NULL;
    unsigned char *file = NULL;
    if (binary) {
        make_key(d, options, source, key, KEY_BYTES);
        file_path(dir, key, ".clbin", path, sizeof path);
        file = cache_file_make(key, binary, size, &file_size);
        if (!file || private_file_replace(path, file, file_size) != 0)
            log_message(d->options, APSP_LOG_DEBUG, "kernel cache: cannot write %s: %s", path,
                        file ? strerror(errno) : "out of memory");
    }
    free(file);
    free(binary);
    free(key);
}

void program_cache_close(cl_device *d) {
    for (size_t i = 0; i < CACHE_MARKERS; i++)
        if (d->cache_markers[i][0]) {
            unlink(d->cache_markers[i]);
            d->cache_markers[i][0] = '\0';
        }
}
