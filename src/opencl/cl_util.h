/* OpenCL helpers for the OpenCL backend: error names, device queries, build logs, and the kernel
 * sources embedded at build time (tools/embed_cl.py turns the .cl files of cl/ into
 * apsp_cl_sources). */
#ifndef APSP_CL_UTIL_H
#define APSP_CL_UTIL_H

/* The 1.2 API is all we use; it runs on every OpenCL 1.2+ driver. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "base/error.h"
#include "base/fault.h"

#include <stddef.h>

/* OpenCL calls that fail on purpose in fault-injection builds (src/fault.h) when they are the
 * N-th: FAULT_CL_STATUS for calls that return a status, FAULT_CL_OBJECT for calls that create an
 * object and report through *errp. In normal builds they are the call itself. */
#define FAULT_CL_STATUS(call) (fault_hit(FAULT_CL) ? CL_OUT_OF_RESOURCES : (call))
#define FAULT_CL_OBJECT(errp, call)                                                                \
    (fault_hit(FAULT_CL) ? (*(errp) = CL_OUT_OF_RESOURCES, NULL) : (call))

/* Not in every header version: the ICD loader's "no platform installed". */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* "CL_OUT_OF_RESOURCES" for -5; NULL for a code it does not know. */
const char *cl_error_name(cl_int code);

/* Like fail(), with ": CL_NAME" (or ": OpenCL error -N") appended to the message. */
apsp_status cl_fail(apsp_error *error, apsp_status status, cl_int code, const char *format, ...)
    APSP_PRINTF(4, 5);

/* String-valued clGetDeviceInfo / clGetPlatformInfo into buf, with surrounding blanks removed
 * (some drivers pad names); "" on failure. */
void cl_device_string(cl_device_id device, cl_device_info param, char *buf, size_t size);
/* Whether the device's extensions name `name`. */
int cl_has_extension(cl_device_id device, const char *name);
void cl_platform_string(cl_platform_id platform, cl_platform_info param, char *buf, size_t size);

/* The build log of program for device, malloc'ed and without trailing blank lines; NULL when
 * there is none or it cannot be read. */
char *cl_build_log(cl_program program, cl_device_id device);

/* A profile's table of commands: the place for the next command's event, of step `kind`, the
 * arrays grown as needed (kept and freed by the caller); NULL when they cannot grow, which only
 * loses that command's time. */
cl_event *cl_event_slot(cl_event **events, int **kinds, size_t *count, size_t *capacity, int kind);

/* One embedded kernel source file. */
typedef struct apsp_cl_source {
    const char *name; /* base name, e.g. "fw.cl" */
    const char *text;
} apsp_cl_source;

extern const apsp_cl_source apsp_cl_sources[];
extern const size_t apsp_cl_source_count;

/* The text of kernel file `name`: read from dir/name when dir is set (kernel development
 * without rebuilding), else the embedded copy. *text is malloc'ed; *origin receives
 * "embedded fw.cl" or the path, for messages. */
apsp_status cl_load_source(const char *name, const char *dir, char **text, char *origin,
                           size_t origin_size, apsp_error *error);

#endif
