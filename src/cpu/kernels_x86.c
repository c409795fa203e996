/* The wider types' vector instances on x86-64 (kernels.h: choose_x86_relax). */
#include "cpu/kernels.h"

relax_block_fn choose_x86_relax(apsp_dtype dtype, int negative, int isa_rank) {
    (void)dtype, (void)negative, (void)isa_rank;
    return NULL;
}
