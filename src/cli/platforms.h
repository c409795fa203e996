/* Why an OpenCL platform is missing from the device list (platforms.c). */
#ifndef APSP_CLI_PLATFORMS_H
#define APSP_CLI_PLATFORMS_H

#include <stddef.h>

/* The registered OpenCL platforms that did not start in this process, as one line naming each
 * with the reason ("" when none); returns how many. Call after the library has listed the
 * devices: before that, or without OpenCL, it finds none. */
size_t platforms_not_started(char *text, size_t room);

#endif
