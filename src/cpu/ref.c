/*
 * ref.c - the CPU reference kernels. Deliberately plain: one thread, one
 * element at a time, so that there is nothing in them to get wrong.
 */
#include "cpu.h"

void sl_ref_add_f32(size_t n, const float *a, const float *b, float *c)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

sl_status sl_cpu_add_serial(const sl_args *x)
{
    if (x->dtype != SL_F32)
        return SL_ERR_UNSUPPORTED;
    sl_ref_add_f32(x->n, x->a, x->b, x->c);
    return SL_OK;
}
