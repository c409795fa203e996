/* What the rest of the library may know of the pthread backend beyond the backend table: how
 * long it would take, for auto mode's choice before any device is open (solver.c). */
#ifndef APSP_CPU_ESTIMATE_H
#define APSP_CPU_ESTIMATE_H

#include "apsp.h"

#include <stddef.h>

/* Seconds the pthread backend would take for `vertices` with the options' thread count, by the
 * estimate it shares rows by. */
double cpu_estimated_seconds(const apsp_options *options, size_t vertices);

#endif
