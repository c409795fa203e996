/* The compiled program cached on disk between runs (program_cache.c). */
#ifndef APSP_OPENCL_PROGRAM_CACHE_H
#define APSP_OPENCL_PROGRAM_CACHE_H

#include "opencl/device.h"

/* The program built from `source` with the build options `options` for the device, from the
 * cache of options->kernel_cache; NULL when there is none to use. fw.cl's (program.c) and
 * paths.cl's (predecessors.c) are kept apart by their source and options. */
cl_program program_cache_load(cl_device *d, const char *options, const char *source);

/* Whether the driver can be asked for a program's binary under this process's address-space
 * and data limits: 1, else 0 with the reason in `reason`. PoCL (3.1 and later) serializes a
 * binary into a 256 MiB scratch buffer whose malloc it does not check, and writes its header to
 * NULL when that fails (clGetProgramInfo(CL_PROGRAM_BINARY_SIZES), SIGSEGV at address 0): a
 * crash under `ulimit -v` that the solve itself would have survived. */
int program_binary_has_room(char *reason, size_t room);

/* Keeps the binary of `program`, built from `source` with `options`, in the cache; failures only
 * go to the log (a cache never fails a solve). */
void program_cache_store(cl_device *d, cl_program program, const char *options, const char *source);

/* The device is done with the programs it loaded from the cache without dying: their "in use"
 * markers go. */
void program_cache_close(cl_device *d);

#endif
