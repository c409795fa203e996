/* What the solver's own files (solver.c, batch.c, sources.c) ask of an apsp_solver beside the
 * public functions: its options, its device, and whether host work may run beside its rounds.
 * Nothing below the solver includes this: the features take what they need as arguments. */
#ifndef APSP_SOLVER_SOLVER_H
#define APSP_SOLVER_SOLVER_H

#include "apsp.h"
#include "backend/backend.h"

/* The options the solver was made with. */
const apsp_options *solver_options(const apsp_solver *solver);

/* The solver's backend and its first device; NULL when it has none. */
backend_device *solver_device(const apsp_solver *solver, const apsp_backend_impl **impl);

/* Whether host work may run beside the devices' rounds (apsp_options.overlap): they are off
 * the host's cores, or an OpenCL device and asked for. */
int solver_overlaps(const apsp_solver *solver);

#endif
