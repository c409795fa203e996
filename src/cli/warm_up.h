/* The OpenCL platforms loaded on a thread while the input is read (warm_up.c). */
#ifndef APSP_CLI_WARM_UP_H
#define APSP_CLI_WARM_UP_H

#include <pthread.h>

/* A load begun by warm_up_start, until warm_up_join. */
typedef struct warm_up {
    pthread_t thread;
    int started;
    double seconds; /* what the load took on its thread (after the join) */
} warm_up;

/* Lists the devices on a thread (apsp_list_devices, the list thrown away), so that the ICD
 * loader and every vendor's platform (0.45 s for NVIDIA's on a two-GPU host) have started by
 * the time the solver, opened after the read, lists them again; a failure is the solver's to
 * find and report. Leaves w->started 0 where no thread could be made. */
void warm_up_start(warm_up *w);

/* Waits for the load (nothing if none was started, or it was joined already). */
void warm_up_join(warm_up *w);

#endif
