/*
 * dot rung 2: 16-byte loads (4 f32 or 2 f64 per input per load) over a
 * persistent grid, fp64 fma, warp-shuffle block sums (dot_vec.cuh, ILP 1).
 *
 * Change from rung 1: a quarter (f32) or half (f64) of the load
 * instructions, and 32 bytes in flight per thread instead of 8 or 16:
 * 64 KiB per SM at 2048 resident threads, above the ~48 KiB knee
 * (docs/probes.md). Expectation: at the read ceiling (~4460 GB/s on the
 * H200, docs/probes.md), give or take the grid's final combination.
 */
#include "dot_vec.cuh"

extern "C" sl_status sl_cuda_dot_vec(const sl_args *x)
{
    sl_status st = dot_check_args(x);
    if (st != SL_OK)
        return st;
    return x->dtype == SL_F64 ? launch_vec<1, double>(x) : launch_vec<1, float>(x);
}

extern "C" sl_status sl_cuda_dot_vec_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F64 ? (const void *)dot_vec<1, double> : (const void *)dot_vec<1, float>,
                                VEC_BLOCK, 0, out);
}
