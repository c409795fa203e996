/* apsp_kernel_params: the parameter list for the CLI's --kernel-params=help and for programs. */
#include "opencl/param_list.h"

const apsp_kernel_param *apsp_kernel_params(size_t *count) {
#ifdef APSP_HAVE_OPENCL
    static const apsp_kernel_param list[] = {
#define KERNEL_PARAM_ENTRY(NAME, field, fallback, least, most, meaning)                            \
    {#NAME, fallback, least, most, meaning},
        KERNEL_PARAMS(KERNEL_PARAM_ENTRY)
#undef KERNEL_PARAM_ENTRY
    };
    *count = sizeof list / sizeof list[0];
    return list;
#else
    *count = 0;
    return NULL;
#endif
}
