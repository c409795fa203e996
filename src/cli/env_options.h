/* The APSP_* environment variables of the command line, mapped to library options (the library
 * itself reads no environment). Test and benchmark programs use the same mapping. */
#ifndef APSP_CLI_ENV_OPTIONS_H
#define APSP_CLI_ENV_OPTIONS_H

#include "apsp.h"

#include <stddef.h>

/* Fills what the options leave unset from the environment:
 *   APSP_DEVICE            options->device (not with --backend=cpu)
 *   APSP_KERNEL_PARAMS     options->kernel_params (not with --backend=cpu)
 *   APSP_MAX_BUFFER_BYTES  options->max_buffer_bytes ("64K", "512M")
 *   APSP_DEVICE_MEMORY     options->device_memory ("64M", "4G")
 *   APSP_CPU_ISA           options->cpu_isa
 *   APSP_KERNEL_DIR, APSP_BUILD_OPTIONS, APSP_DUMP_PROGRAM, APSP_PROFILE=1: kernel work
 * *show_build is set by APSP_SHOW_BUILD=1 (show the build log of a successful build).
 * Returns 0, or -1 with a one-line message for a malformed value. */
int env_options_apply(apsp_options *options, int *show_build, char *message, size_t size);

#endif
