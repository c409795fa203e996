/* The two solvers of the OpenCL batch tests (header only): the pthread backend's on 2 threads,
 * whose batch tests/api/test_batch.c checks against the oracle, and the OpenCL one to compare
 * with it. */
#ifndef APSP_TEST_BATCH_SOLVERS_H
#define APSP_TEST_BATCH_SOLVERS_H

#include "apsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BATCH_EXIT_SKIP = 77 };

/* *cpu and *cl (from `device`, an OpenCL solver's options): 0 with both made, else the test's
 * exit status: 1, or 77 (skipped) without an OpenCL device unless APSP_TEST_REQUIRE_DEVICE=1. */
static inline int batch_solvers(const apsp_options *device, apsp_solver **cpu, apsp_solver **cl) {
    apsp_options o;
    apsp_options_init(&o);
    o.backend = APSP_BACKEND_CPU;
    o.threads = 2;
    apsp_error err;
    if (apsp_solver_create(&o, cpu, &err) != APSP_OK) {
        fprintf(stderr, "solver: %s\n", err.message);
        return 1;
    }
    if (apsp_solver_create(device, cl, &err) == APSP_OK)
        return 0;
    const char *require = getenv("APSP_TEST_REQUIRE_DEVICE");
    printf("no device: %s\n", err.message);
    apsp_solver_destroy(*cpu);
    return require && strcmp(require, "1") == 0 ? 1 : BATCH_EXIT_SKIP;
}

#endif
