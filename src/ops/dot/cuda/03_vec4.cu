/*
 * dot rung 3: rung 2 with ILP 4: four 16-byte loads per input per thread
 * issued before the first fma, into four independent fp64 sums.
 *
 * Change from rung 2: 128 bytes in flight per thread, so the grid need not
 * be full for Little's law to be met; the price is registers (four
 * accumulators and eight uint4). Expectation: equal to rung 2 if rung 2
 * already met the knee; better if the loop's dependent fma chain or its
 * tail was costing issue slots.
 */
#include "dot_vec.cuh"

extern "C" sl_status sl_cuda_dot_vec4(const sl_args *x)
{
    sl_status st = dot_check_args(x);
    if (st != SL_OK)
        return st;
    return x->dtype == SL_F64 ? launch_vec<4, double>(x) : launch_vec<4, float>(x);
}

extern "C" sl_status sl_cuda_dot_vec4_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F64 ? (const void *)dot_vec<4, double> : (const void *)dot_vec<4, float>,
                                VEC_BLOCK, 0, out);
}

/* What sl_dot() runs on a CUDA context (docs/ladder.md, "dot"). */
extern "C" sl_status sl_cuda_dot_api(const sl_args *x)
{
    return sl_cuda_dot_vec4(x);
}
