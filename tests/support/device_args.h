/* The arguments that pick a test's device, shared by the tests that run on either backend:
 * --backend=cpu|opencl (the pthread backend without it), --device=SPEC and --tile=N, into
 * options (header only). */
#ifndef APSP_TEST_DEVICE_ARGS_H
#define APSP_TEST_DEVICE_ARGS_H

#include "apsp.h"

#include <stdlib.h>
#include <string.h>

/* 1 when arg is one of them (taken into o), else 0 (the test's own, or a mistake). */
static inline int device_arg(const char *arg, apsp_options *o) {
    if (strncmp(arg, "--backend=", 10) == 0)
        return apsp_backend_parse(arg + 10, &o->backend) == 0;
    if (strncmp(arg, "--device=", 9) == 0)
        o->device = arg + 9;
    else if (strncmp(arg, "--tile=", 7) == 0)
        o->tile = atoi(arg + 7);
    else
        return 0;
    return 1;
}

/* apsp_options_init's options with the arguments in them; an argument that is not one of the
 * above goes to own(arg, context), which returns 0 when it is not the test's either. Returns -1
 * at the first argument that neither takes, else 0. */
static inline int device_args(int argc, char **argv, apsp_options *o,
                              int (*own)(const char *arg, void *context), void *context) {
    apsp_options_init(o);
    o->backend = APSP_BACKEND_CPU;
    for (int a = 1; a < argc; a++)
        if (!device_arg(argv[a], o) && !own(argv[a], context))
            return -1;
    return 0;
}

#endif
