/* The input read on a thread while the main thread starts the devices (warm_up.c). */
#ifndef APSP_CLI_WARM_UP_H
#define APSP_CLI_WARM_UP_H

#include "apsp.h"

/* apsp_read_graph's read, with `beside(context)` run on the calling thread while a thread of its
 * own reads (beside NULL: the read alone): the OpenCL platforms' load (warm_up_list_platforms),
 * so that the ICD loader and every vendor's platform (0.45 s for NVIDIA's on a two-GPU host)
 * have started when the solver, opened after the read, lists them again; or the solver's opening
 * itself where the graph's size is known before its edges are. The devices start on the calling
 * thread, which lives to the end: PoCL's LLVM gives the thread that loads it an alternate signal
 * stack of its own, which a thread's exit under AddressSanitizer would try to unmap as its own.
 * *beside_seconds: beside's time (0 where there was none, or no thread for the read: then it
 * runs first, the read after it); *waited: how long it outlasted the read. */
apsp_status warm_up_read(const char *input, const apsp_read_options *options,
                         void (*beside)(void *context), void *context, apsp_graph **graph,
                         double *beside_seconds, double *waited, apsp_error *error);

/* A `beside` for warm_up_read: every device listed, the list thrown away (a failure of the
 * listing is the solver's to find and report). */
void warm_up_list_platforms(void *unused);

#endif
