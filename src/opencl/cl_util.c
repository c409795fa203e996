#include "opencl/cl_util.h"
#include "base/fault.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cl_error_name(cl_int code) {
    switch (code) {
#define NAME(c)                                                                                    \
    case c:                                                                                        \
        return #c;
        NAME(CL_SUCCESS)
        NAME(CL_DEVICE_NOT_FOUND)
        NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE)
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES)
        NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
        NAME(CL_MEM_COPY_OVERLAP)
        NAME(CL_IMAGE_FORMAT_MISMATCH)
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        NAME(CL_BUILD_PROGRAM_FAILURE)
        NAME(CL_MAP_FAILURE)
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NAME(CL_COMPILE_PROGRAM_FAILURE)
        NAME(CL_LINKER_NOT_AVAILABLE)
        NAME(CL_LINK_PROGRAM_FAILURE)
        NAME(CL_DEVICE_PARTITION_FAILED)
        NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE_TYPE)
        NAME(CL_INVALID_PLATFORM)
        NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT)
        NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE)
        NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        NAME(CL_INVALID_IMAGE_SIZE)
        NAME(CL_INVALID_SAMPLER)
        NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS)
        NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL_DEFINITION)
        NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE)
        NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET)
        NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT)
        NAME(CL_INVALID_OPERATION)
        NAME(CL_INVALID_GL_OBJECT)
        NAME(CL_INVALID_BUFFER_SIZE)
        NAME(CL_INVALID_MIP_LEVEL)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE)
        NAME(CL_INVALID_PROPERTY)
        NAME(CL_INVALID_IMAGE_DESCRIPTOR)
        NAME(CL_INVALID_COMPILER_OPTIONS)
        NAME(CL_INVALID_LINKER_OPTIONS)
        NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
        NAME(CL_PLATFORM_NOT_FOUND_KHR)
#undef NAME
    /* Later core codes, spelled out so that the 1.2 headers need not define them. */
    case -69:
        return "CL_INVALID_PIPE_SIZE";
    case -70:
        return "CL_INVALID_DEVICE_QUEUE";
    case -71:
        return "CL_INVALID_SPEC_ID";
    case -72:
        return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    }
    return NULL;
}

apsp_status cl_fail(apsp_error *error, apsp_status status, cl_int code, const char *format, ...) {
    if (error) {
        char what[768];
        va_list args;
        va_start(args, format);
        vsnprintf(what, sizeof what, format, args);
        va_end(args);
        const char *name = cl_error_name(code);
        if (name)
            snprintf(error->message, sizeof error->message, "%s: %s", what, name);
        else
            snprintf(error->message, sizeof error->message, "%s: OpenCL error %d", what, (int)code);
        error->status = status;
    }
    return status;
}

static void trim(char *buf, size_t size) {
    buf[size - 1] = '\0';
    size_t len = strlen(buf);
    while (len > 0 && isspace((unsigned char)buf[len - 1]))
        buf[--len] = '\0';
    size_t lead = 0;
    while (isspace((unsigned char)buf[lead]))
        lead++;
    memmove(buf, buf + lead, len - lead + 1);
}

/* A string query truncated to buf: drivers refuse a buffer shorter than the whole string. */
static void query_string(int is_device, void *object, cl_uint param, char *buf, size_t size) {
    size_t need = 0;
    cl_int err = is_device ? clGetDeviceInfo(object, param, 0, NULL, &need)
                           : clGetPlatformInfo(object, param, 0, NULL, &need);
    char *text = err == CL_SUCCESS && need > 0 ? apsp_malloc(need + 1) : NULL;
    buf[0] = '\0';
    if (text) {
        err = is_device ? clGetDeviceInfo(object, param, need, text, NULL)
                        : clGetPlatformInfo(object, param, need, text, NULL);
        if (err == CL_SUCCESS) {
            text[need] = '\0';
            snprintf(buf, size, "%s", text);
        }
        free(text);
    }
    trim(buf, size);
}

void cl_device_string(cl_device_id device, cl_device_info param, char *buf, size_t size) {
    query_string(1, device, param, buf, size);
}

void cl_platform_string(cl_platform_id platform, cl_platform_info param, char *buf, size_t size) {
    query_string(0, platform, param, buf, size);
}

char *cl_build_log(cl_program program, cl_device_id device) {
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return NULL;
    char *log = apsp_malloc(size + 1);
    if (!log)
        return NULL;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
        CL_SUCCESS) {
        free(log);
        return NULL;
    }
    log[size] = '\0';
    size_t len = strlen(log);
    while (len > 0 && isspace((unsigned char)log[len - 1]))
        log[--len] = '\0';
    if (len == 0) {
        free(log);
        return NULL;
    }
    return log;
}

static apsp_status read_text_file(const char *path, char **text, apsp_error *error) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(error, APSP_ERR_KERNEL_BUILD, "kernel folder: cannot open %s: %s", path,
                    strerror(errno));
    size_t size = 0, capacity = 16384;
    char *buf = apsp_malloc(capacity);
    while (buf) {
        size += fread(buf + size, 1, capacity - size - 1, f);
        if (size < capacity - 1)
            break;
        capacity *= 2;
        char *bigger = apsp_realloc(buf, capacity);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    int read_error = ferror(f);
    fclose(f);
    if (!buf)
        return fail(error, APSP_ERR_NO_MEMORY, "out of memory reading %s", path);
    if (read_error) {
        free(buf);
        return fail(error, APSP_ERR_KERNEL_BUILD, "kernel folder: error reading %s", path);
    }
    buf[size] = '\0';
    *text = buf;
    return APSP_OK;
}

int cl_has_extension(cl_device_id device, const char *name) {
    char list[4096] = "";
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof list - 1, list, NULL);
    for (const char *at = list; (at = strstr(at, name)) != NULL; at += strlen(name))
        if ((at == list || at[-1] == ' ') && (at[strlen(name)] == ' ' || !at[strlen(name)]))
            return 1;
    return 0;
}

apsp_status cl_load_source(const char *name, const char *dir, char **text, char *origin,
                           size_t origin_size, apsp_error *error) {
    *text = NULL;
    if (dir && *dir) {
        snprintf(origin, origin_size, "%s/%s", dir, name);
        return read_text_file(origin, text, error);
    }
    for (size_t i = 0; i < apsp_cl_source_count; i++) {
        if (strcmp(apsp_cl_sources[i].name, name) == 0) {
            snprintf(origin, origin_size, "embedded %s", name);
            *text = apsp_strdup(apsp_cl_sources[i].text);
            return *text ? APSP_OK : fail(error, APSP_ERR_NO_MEMORY, "out of memory");
        }
    }
    return fail(error, APSP_ERR_INTERNAL, "kernel source %s is not embedded in the library", name);
}

cl_event *cl_event_slot(cl_event **events, int **kinds, size_t *count, size_t *capacity, int kind) {
    if (*count == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 64;
        cl_event *more_events = apsp_realloc(*events, grown * sizeof **events);
        if (more_events)
            *events = more_events;
        int *more_kinds = more_events ? apsp_realloc(*kinds, grown * sizeof **kinds) : NULL;
        if (more_kinds)
            *kinds = more_kinds;
        if (!more_events || !more_kinds)
            return NULL;
        *capacity = grown;
    }
    (*kinds)[*count] = kind;
    (*events)[*count] = NULL;
    return &(*events)[(*count)++];
}
