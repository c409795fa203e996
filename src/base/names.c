/* The names of the library's lists: backends, element types (base/element_types.h's list, with
 * its sizes), methods (apsp_*_name and apsp_*_parse). Nothing here needs more than apsp.h and the
 * C library, so apsp-option-docs, a build-time tool, compiles this file alone instead of linking
 * the library and its OpenCL loader (which a wheel's build cannot run). */
#include "base/element_types.h"

#include <string.h>

static const char *const backend_names[] = {
    [APSP_BACKEND_AUTO] = "auto",
    [APSP_BACKEND_CPU] = "cpu",
    [APSP_BACKEND_OPENCL] = "opencl",
};

int apsp_backend_parse(const char *text, apsp_backend_kind *kind) {
    for (size_t i = 0; i < sizeof backend_names / sizeof backend_names[0]; i++) {
        if (strcmp(text, backend_names[i]) == 0) {
            *kind = (apsp_backend_kind)i;
            return 0;
        }
    }
    return -1;
}

const char *apsp_backend_name(apsp_backend_kind kind) {
    if ((size_t)kind < sizeof backend_names / sizeof backend_names[0])
        return backend_names[kind];
    return "unknown";
}

int apsp_dtype_parse(const char *text, apsp_dtype *dtype) {
    for (int i = 0; i < ELEMENT_TYPE_COUNT; i++) {
        if (strcmp(text, element_facts((apsp_dtype)i).name) == 0) {
            *dtype = (apsp_dtype)i;
            return 0;
        }
    }
    return -1;
}

const char *apsp_dtype_name(apsp_dtype dtype) {
    return element_facts(dtype).name;
}

size_t apsp_dtype_size(apsp_dtype dtype) {
    return element_facts(dtype).size;
}

static const char *const method_names[] = {
    [APSP_METHOD_AUTO] = "auto",
    [APSP_METHOD_FW] = "fw",
    [APSP_METHOD_DIJKSTRA] = "dijkstra",
    [APSP_METHOD_JOHNSON] = "johnson",
    [APSP_METHOD_BELLMAN_FORD] = "bellman-ford",
};

enum { METHOD_COUNT = sizeof method_names / sizeof method_names[0] };

int apsp_method_parse(const char *text, apsp_method *method) {
    for (int m = 0; text && m < METHOD_COUNT; m++)
        if (strcmp(text, method_names[m]) == 0) {
            *method = (apsp_method)m;
            return 0;
        }
    return -1;
}

const char *apsp_method_name(apsp_method method) {
    return (unsigned)method < METHOD_COUNT ? method_names[method] : "unknown";
}
