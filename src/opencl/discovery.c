/* OpenCL device discovery and the device list's OpenCL entries. */
#include "opencl/discovery.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Called for every available device in platform order; returns nonzero to stop. */
typedef int (*device_visitor)(void *context, cl_platform_id platform, cl_device_id device);

/* Below these OpenCL is not tried. Free file descriptors: PoCL's compiler needed 13-16 here and
 * aborted with fewer (the ICD loader, short of them, silently finds no platform). Address space
 * left under ulimit -v or -d: PoCL 3.1 maps 390 MiB once started (its libraries, LLVM's, a thread
 * per core) and about 520 MiB once it has compiled the kernels, and with 244 MiB it aborted
 * starting its threads (pthread_scheduler_init). */
enum { OPENCL_LEAST_FILES = 32 };
#define OPENCL_LEAST_ROOM ((uint64_t)512 << 20)

/* Appends to `why` (NULL: not wanted) a reason devices may be missing. */
static void note(char *why, size_t size, const char *format, ...) APSP_PRINTF(3, 4);
static void note(char *why, size_t size, const char *format, ...) {
    size_t used = why ? strlen(why) : size;
    if (used + 2 >= size)
        return;
    if (used)
        used += (size_t)snprintf(why + used, size - used, "; ");
    va_list args;
    va_start(args, format);
    vsnprintf(why + used, size - used, format, args);
    va_end(args);
}

/* Why the loader may have left platforms out: a process limit that a driver could not start
 * under (its libraries or threads not mapped), named for the message. */
static void note_limits(char *why, size_t size) {
    uint64_t limit;
    const char *which;
    char cap[32];
    if (mapping_room(&limit, &which) != UINT64_MAX)
        note(why, size, "%s is %s, under which a platform may fail to start", which,
             format_bytes(limit, cap, sizeof cap));
}

/* Whether this process has the descriptors and the address space to start a platform. */
static int enough_room(char *why, size_t size) {
    uint64_t limit, room = descriptor_room(&limit);
    if (room < OPENCL_LEAST_FILES) {
        note(why, size,
             "OpenCL was not tried: too few file descriptors, %llu free under the open-file "
             "limit (ulimit -n) of %llu, and its platforms need at least %d",
             (unsigned long long)room, (unsigned long long)limit, OPENCL_LEAST_FILES);
        return 0;
    }
    const char *which;
    char cap[32], left[32], least[32];
    room = mapping_room(&limit, &which);
    if (room >= OPENCL_LEAST_ROOM)
        return 1;
    note(why, size, "OpenCL was not tried: %s of %s leaves %s, and its platforms need at least %s",
         which, format_bytes(limit, cap, sizeof cap), format_bytes(room, left, sizeof left),
         format_bytes(OPENCL_LEAST_ROOM, least, sizeof least));
    return 0;
}

/* The platforms, or none (*count = 0), with why at `why`. */
static cl_platform_id *platforms_of(cl_uint *count, char *why, size_t size, apsp_error *error) {
    cl_int err = clGetPlatformIDs(0, NULL, count);
    if (err != CL_SUCCESS || *count == 0) {
        note(why, size, "the OpenCL loader found no platform: clGetPlatformIDs returned %s",
             cl_error_name(err));
        note_limits(why, size);
        *count = 0;
        return NULL;
    }
    cl_platform_id *platforms = apsp_calloc(*count, sizeof *platforms);
    if (!platforms) {
        fail(error, APSP_ERR_NO_MEMORY, "out of memory listing OpenCL platforms");
        return NULL;
    }
    err = clGetPlatformIDs(*count, platforms, count);
    if (err != CL_SUCCESS) {
        note(why, size, "clGetPlatformIDs returned %s", cl_error_name(err));
        *count = 0;
    }
    return platforms;
}

/* Visits every available OpenCL device. No loader, no platform (CL_PLATFORM_NOT_FOUND_KHR) or a
 * platform that fails to list its devices all mean "no devices": OpenCL trouble must never keep
 * the pthread backend from running. Why devices are missing goes to `why` (NULL: not wanted). */
static apsp_status for_each_device(device_visitor visit, void *context, char *why, size_t size,
                                   apsp_error *error) {
    cl_uint platform_count = 0;
    cl_platform_id *platforms = platforms_of(&platform_count, why, size, error);
    if (!platforms)
        return platform_count ? APSP_ERR_NO_MEMORY : APSP_OK;
    int stop = 0;
    for (cl_uint p = 0; p < platform_count && !stop; p++) {
        cl_uint device_count = 0;
        char name[96];
        cl_int err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &device_count);
        if (err != CL_SUCCESS || device_count == 0) {
            cl_platform_string(platforms[p], CL_PLATFORM_NAME, name, sizeof name);
            note(why, size, "OpenCL platform %s lists no device: clGetDeviceIDs returned %s", name,
                 cl_error_name(err));
            if (err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES)
                note_limits(why, size);
            continue;
        }
        cl_device_id *devices = apsp_calloc(device_count, sizeof *devices);
        if (!devices) {
            free(platforms);
            return fail(error, APSP_ERR_NO_MEMORY, "out of memory listing OpenCL devices");
        }
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, device_count, devices,
                           &device_count) != CL_SUCCESS)
            device_count = 0;
        for (cl_uint d = 0; d < device_count && !stop; d++) {
            cl_bool available = CL_FALSE;
            if (clGetDeviceInfo(devices[d], CL_DEVICE_AVAILABLE, sizeof available, &available,
                                NULL) == CL_SUCCESS &&
                available) {
                stop = visit(context, platforms[p], devices[d]);
                continue;
            }
            cl_device_string(devices[d], CL_DEVICE_NAME, name, sizeof name);
            note(why, size, "OpenCL device %s is not available", name);
        }
        free(devices);
    }
    free(platforms);
    return APSP_OK;
}

static const char *type_word(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU)
        return "gpu";
    if (type & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

/* Every clGetDeviceInfo query below has a fixed-size result; a failed one leaves 0. */
void query_limits(cl_device_id device, device_limits *lim) {
    memset(lim, 0, sizeof *lim);
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof lim->type, &lim->type, NULL);
    cl_device_string(device, CL_DEVICE_VENDOR, lim->vendor, sizeof lim->vendor);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof lim->global_memory,
                    &lim->global_memory, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof lim->max_allocation,
                    &lim->max_allocation, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lim->local_memory, &lim->local_memory,
                    NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof lim->max_work_group,
                    &lim->max_work_group, NULL);
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    lim->fp64 = fp64 != 0;
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    lim->host_memory = unified || (lim->type & CL_DEVICE_TYPE_CPU);
    cl_uint dims = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims, NULL);
    if (dims >= 3) {
        size_t sizes[16] = {0};
        if (dims <= 16 && clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                          dims * sizeof sizes[0], sizes, NULL) == CL_SUCCESS)
            memcpy(lim->max_item, sizes, sizeof lim->max_item);
    }
}

typedef struct list_context {
    device_list *list;
    int count;
    int out_of_memory;
} list_context;

static int list_one(void *context, cl_platform_id platform, cl_device_id device) {
    list_context *lc = context;
    apsp_device_info *d = device_list_add(lc->list);
    if (!d) {
        lc->out_of_memory = 1;
        return 1;
    }
    device_limits lim;
    query_limits(device, &lim);
    cl_uint units = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    char driver[60], version[60]; /* both fit d->driver */
    cl_device_string(device, CL_DRIVER_VERSION, driver, sizeof driver);
    cl_device_string(device, CL_DEVICE_VERSION, version, sizeof version);

    d->backend = APSP_BACKEND_OPENCL;
    d->backend_index = lc->count++;
    /* The platform's name, and its vendor where the name does not say it, so that a spec like
     * "pocl" or "amd" finds "Portable Computing Language (The pocl project)". */
    char name[96], vendor[96], first[96];
    cl_platform_string(platform, CL_PLATFORM_NAME, name, sizeof name);
    cl_platform_string(platform, CL_PLATFORM_VENDOR, vendor, sizeof vendor);
    snprintf(first, sizeof first, "%.*s", (int)strcspn(vendor, " ,"), vendor);
    if (vendor[0] && !contains_ignoring_case(name, first))
        snprintf(d->platform, sizeof d->platform, "%.*s (%.*s)", 60, name, 60, vendor);
    else
        snprintf(d->platform, sizeof d->platform, "%s", name);
    cl_device_string(device, CL_DEVICE_NAME, d->name, sizeof d->name);
    snprintf(d->type, sizeof d->type, "%s", type_word(lim.type));
    d->compute_units = units;
    d->global_memory = lim.global_memory;
    d->max_allocation = lim.max_allocation;
    d->local_memory = lim.local_memory;
    d->max_work_group = lim.max_work_group;
    /* "3.1+debian, OpenCL 3.0": the driver's version and the first two words of the device's. */
    int words = 0;
    for (char *c = version; *c; c++)
        if (*c == ' ' && ++words == 2)
            *c = '\0';
    snprintf(d->driver, sizeof d->driver, "%s, %s", driver, version);
    return 0;
}

apsp_status opencl_list(device_list *list, apsp_error *error) {
    list_context lc = {.list = list};
    /* Checked when the platforms are started, by the listing; once started, finding a listed
     * device again needs no room. */
    if (!enough_room(list->missing, sizeof list->missing))
        return APSP_OK;
    apsp_status status = for_each_device(list_one, &lc, list->missing, sizeof list->missing, error);
    if (status == APSP_OK && lc.out_of_memory)
        status = fail(error, APSP_ERR_NO_MEMORY, "out of memory listing devices");
    return status;
}

typedef struct find_context {
    int wanted, seen;
    cl_platform_id platform;
    cl_device_id device;
} find_context;

static int find_one(void *context, cl_platform_id platform, cl_device_id device) {
    find_context *fc = context;
    if (fc->seen++ != fc->wanted)
        return 0;
    fc->platform = platform;
    fc->device = device;
    return 1;
}

apsp_status opencl_find(int wanted, cl_platform_id *platform, cl_device_id *device,
                        apsp_error *error) {
    find_context fc = {.wanted = wanted};
    apsp_status status = for_each_device(find_one, &fc, NULL, 0, error);
    *platform = fc.platform;
    *device = fc.device;
    return status;
}
