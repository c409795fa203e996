/* OpenCL device discovery and the device list's OpenCL entries. */
#include "opencl/discovery.h"
#include "base/error.h"
#include "base/fault.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Called for every available device in platform order; returns nonzero to stop. */
typedef int (*device_visitor)(void *context, cl_platform_id platform, cl_device_id device);

/* Visits every available OpenCL device. No loader, no platform (CL_PLATFORM_NOT_FOUND_KHR) or a
 * platform that fails to list its devices all mean "no devices": OpenCL trouble must never keep
 * the pthread backend from running. */
static apsp_status for_each_device(device_visitor visit, void *context, apsp_error *error) {
    cl_uint platform_count = 0;
    if (clGetPlatformIDs(0, NULL, &platform_count) != CL_SUCCESS || platform_count == 0)
        return APSP_OK;
    cl_platform_id *platforms = apsp_calloc(platform_count, sizeof *platforms);
    if (!platforms)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory listing OpenCL platforms");
    if (clGetPlatformIDs(platform_count, platforms, &platform_count) != CL_SUCCESS)
        platform_count = 0;
    int stop = 0;
    for (cl_uint p = 0; p < platform_count && !stop; p++) {
        cl_uint device_count = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &device_count) !=
                CL_SUCCESS ||
            device_count == 0)
            continue;
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
                available)
                stop = visit(context, platforms[p], devices[d]);
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
    apsp_status status = for_each_device(list_one, &lc, error);
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
    apsp_status status = for_each_device(find_one, &fc, error);
    *platform = fc.platform;
    *device = fc.device;
    return status;
}
