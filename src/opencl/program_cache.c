/* The compiled program, cached on disk between runs (options->kernel_cache).
 *
 * Compiling fw.cl costs 1.6 s on NVIDIA's driver and 0.1-0.2 s on PoCL on every run; the driver's
 * binary (PTX on NVIDIA) loads in milliseconds. A cache file is named by a hash of its key and
 * holds the key in full, so that a hash collision or a stale file is never used:
 *
 *     key text (platform, device, driver and device versions, build options, source hash) NUL
 *     binary size (8 bytes, little-endian)  binary checksum (8 bytes)  binary
 *
 * A file that does not match, is cut short, is corrupt or that the driver refuses is ignored and
 * replaced after the build from source. Files are written to a temporary name and renamed, so a
 * reader never sees half of one; concurrent runs at worst write the same file twice. Nothing
 * here can fail a solve: every failure falls back to compiling. */
#define _GNU_SOURCE
#include "opencl/program_cache.h"
#include "base/fault.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A cache file larger than this is not ours (fw.cl's binaries are a few hundred KiB). */
enum { MOST_CACHE_BYTES = 64 << 20, KEY_BYTES = 4096 };

static uint64_t fnv1a(const void *data, size_t size, uint64_t hash) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ p[i]) * 0x100000001b3ULL;
    return hash;
}

static uint64_t checksum(const void *data, size_t size) {
    return fnv1a(data, size, 0xcbf29ce484222325ULL);
}

static void store_le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t load_le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Everything the binary depends on, as text. */
static void make_key(const backend_device *d, const char *options, const char *source, char *key,
                     size_t room) {
    char platform[256], driver[128], version[128];
    cl_platform_id platform_id = NULL;
    clGetDeviceInfo(d->device, CL_DEVICE_PLATFORM, sizeof platform_id, &platform_id, NULL);
    cl_platform_string(platform_id, CL_PLATFORM_VERSION, platform, sizeof platform);
    cl_device_string(d->device, CL_DRIVER_VERSION, driver, sizeof driver);
    cl_device_string(d->device, CL_DEVICE_VERSION, version, sizeof version);
    snprintf(key, room,
             "apsp kernel cache 1\nplatform: %s\ndevice: %s\ndriver: %s\nversion: %s\n"
             "options: %s\nsource: %zu bytes, %016llx\n",
             platform, d->name, driver, version, options, strlen(source),
             (unsigned long long)checksum(source, strlen(source)));
}

static void cache_path(const char *dir, const char *key, char *path, size_t room) {
    snprintf(path, room, "%s/%016llx.clbin", dir, (unsigned long long)checksum(key, strlen(key)));
}

/* The whole file, or NULL when it cannot be read or is too large to be ours. */
static unsigned char *read_file(const char *path, size_t *size) {
    int fd = fault_hit(FAULT_IO) ? -1 : open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    unsigned char *data = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        st.st_size <= MOST_CACHE_BYTES && (data = apsp_malloc((size_t)st.st_size)) != NULL) {
        *size = (size_t)st.st_size;
        if (fault_hit(FAULT_IO) || read(fd, data, *size) != (ssize_t)*size) {
            free(data);
            data = NULL;
        }
    }
    if (fd >= 0)
        close(fd);
    return data;
}

/* The binary inside a cache file that matches `key`, or NULL. */
static const unsigned char *binary_in(const unsigned char *file, size_t size, const char *key,
                                      size_t *binary_size) {
    size_t key_size = strlen(key) + 1;
    if (size < key_size + 16 || memcmp(file, key, key_size) != 0)
        return NULL;
    const unsigned char *header = file + key_size;
    uint64_t stored = load_le64(header);
    if (stored != size - key_size - 16 || checksum(header + 16, stored) != load_le64(header + 8))
        return NULL;
    *binary_size = (size_t)stored;
    return header + 16;
}

/* A program from the binary, built (a binary must be built too), or NULL. */
static cl_program program_from(backend_device *d, const char *options, const unsigned char *binary,
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

cl_program program_cache_load(backend_device *d, const char *options, const char *source) {
    const char *dir = d->options->kernel_cache;
    if (!dir || !*dir)
        return NULL;
    char *key = apsp_malloc(KEY_BYTES), path[4200];
    if (!key)
        return NULL;
    make_key(d, options, source, key, KEY_BYTES);
    cache_path(dir, key, path, sizeof path);
    size_t size = 0, binary_size = 0;
    unsigned char *file = read_file(path, &size);
    const unsigned char *binary = file ? binary_in(file, size, key, &binary_size) : NULL;
    cl_program program = binary ? program_from(d, options, binary, binary_size) : NULL;
    if (program) /* the line a build logs, so the options show either way */
        log_message(d->options, APSP_LOG_DEBUG, "built for %s with '%s' (from the kernel cache %s)",
                    d->name, options, path);
    if (file && !program)
        log_message(d->options, APSP_LOG_DEBUG, "kernel cache: %s is stale or corrupt; rebuilding",
                    path);
    free(file);
    free(key);
    return program;
}

/* mkdir -p, each missing directory private to the user (0700: the cache is per user). */
static int make_directories(const char *dir) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s", dir);
    if (n <= 0 || (size_t)n >= sizeof path)
        return -1;
    for (char *slash = path + 1;; slash++) {
        if (*slash != '/' && *slash != '\0')
            continue;
        char was = *slash;
        *slash = '\0';
        if (fault_hit(FAULT_IO) || (mkdir(path, 0700) != 0 && errno != EEXIST))
            return -1;
        *slash = was;
        if (was == '\0')
            return 0;
    }
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

/* Writes key, header and binary to a temporary file and renames it to `path`. */
static int write_cache_file(const char *path, const char *key, const unsigned char *binary,
                            size_t size) {
    char temp[4300];
    snprintf(temp, sizeof temp, "%s.XXXXXX", path);
    int fd = fault_hit(FAULT_IO) ? -1 : mkstemp(temp);
    if (fd < 0)
        return -1;
    unsigned char header[16];
    store_le64(header, size);
    store_le64(header + 8, checksum(binary, size));
    int ok = write_all(fd, (const unsigned char *)key, strlen(key) + 1) == 0 &&
             write_all(fd, header, sizeof header) == 0 && write_all(fd, binary, size) == 0;
    ok = close(fd) == 0 && ok;
    if (ok && !fault_hit(FAULT_IO) && rename(temp, path) == 0)
        return 0;
    unlink(temp);
    return -1;
}

/* The built program's binary for the one device, or NULL. */
static unsigned char *program_binary(cl_program program, size_t *size) {
    unsigned char *binary = NULL;
    *size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL) !=
            CL_SUCCESS ||
        *size == 0 || *size > MOST_CACHE_BYTES || !(binary = apsp_malloc(*size)))
        return NULL;
    if (FAULT_CL_STATUS(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary,
                                         NULL)) != CL_SUCCESS) {
        free(binary);
        return NULL;
    }
    return binary;
}

void program_cache_store(const backend_device *d, cl_program program, const char *options,
                         const char *source) {
    const char *dir = d->options->kernel_cache;
    if (!dir || !*dir)
        return;
    char *key = apsp_malloc(KEY_BYTES), path[4200];
    size_t size;
    unsigned char *binary = key ? program_binary(program, &size) : NULL;
    if (binary) {
        make_key(d, options, source, key, KEY_BYTES);
        cache_path(dir, key, path, sizeof path);
        if (make_directories(dir) != 0 || write_cache_file(path, key, binary, size) != 0)
            log_message(d->options, APSP_LOG_DEBUG, "kernel cache: cannot write %s: %s", path,
                        strerror(errno));
    }
    free(binary);
    free(key);
}
