/* The input read on a thread while the main thread loads OpenCL's platforms (warm_up.c). */
#ifndef APSP_CLI_WARM_UP_H
#define APSP_CLI_WARM_UP_H

#include "apsp.h"

/* apsp_read_graph's read, with the devices listed beside it when load_platforms is set
 * (apsp_list_devices, the list thrown away), so that the ICD loader and every vendor's platform
 * (0.45 s for NVIDIA's on a two-GPU host) have started when the solver, opened after the read,
 * lists them again; a failure of the listing is the solver's to find and report. The platforms
 * load on the calling thread, which lives to the end: PoCL's LLVM gives the thread that loads it
 * an alternate signal stack of its own, which a thread's exit under AddressSanitizer would try
 * to unmap as its own. *platform_seconds: the load's time (0 where there was none, or no thread
 * for the read); *waited: how long the load outlasted the read. */
apsp_status warm_up_read(const char *input, const apsp_read_options *options, int load_platforms,
                         apsp_graph **graph, double *platform_seconds, double *waited,
                         apsp_error *error);

#endif
