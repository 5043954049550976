/*
 * ref.c - the CPU reference kernels. Deliberately plain: one thread, one
 * element at a time, so that there is nothing in them to get wrong.
 */
#include "cpu.h"
#include "dtype_conv.h"

#include <math.h>

void sl_ref_add_f32(size_t n, const float *a, const float *b, float *c)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

void sl_ref_ew(sl_op op, sl_dtype in, sl_dtype out, float alpha, size_t n, const void *a, const void *b, void *c)
{
    if (op == SL_OP_ADD && in == SL_F32 && out == SL_F32) {
        sl_ref_add_f32(n, a, b, c);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        float x = sl_dtype_load(in, a, i), y = sl_dtype_load(in, b, i);
        sl_dtype_store(out, c, i, op == SL_OP_AXPY ? fmaf(alpha, x, y) : x + y);
    }
}

sl_status sl_cpu_ew_serial(const sl_args *x)
{
    sl_ref_ew(x->op, x->dtype, x->dtype, x->alpha, x->n, x->a, x->b, x->c);
    return SL_OK;
}
