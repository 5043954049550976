/*
 * softmax rung 5: 16-byte loads (seed 002, "float4"). As rung 4, but each
 * access is a 16-byte vector (4 f32, 8 bf16 / f16), over the row's
 * 16-byte-aligned vector grid, with the head before the row's first
 * boundary and the tail after its last masked element by element (the
 * seed's `w/4` dropped the last N mod 4 columns). x and y that differ in
 * their offset modulo 16 bytes run rung 4's scalar kernel.
 *
 * Expectation: a quarter of the load and store instructions (an eighth in
 * bf16) and 16 bytes in flight per thread per load instead of 4: with 512
 * threads per SM, 8 KiB in flight, still below Little's law's ~40 KiB per
 * SM, so long rows stay latency bound, about 4x rung 4 where that bound
 * holds. Three passes (two L2 re-reads) remain.
 */
#include "vec_passes.cuh"

extern "C" sl_status sl_cuda_softmax_vec(const sl_args *a)
{
    sl_status st = smx_check(a, "vec");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if (!vecp_aligned(a))
        return sl_cuda_softmax_shuffle(a);
    return SMX_DISPATCH(a, vecp_launch<1>::run, a);
}

extern "C" sl_status sl_cuda_softmax_vec_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F32    ? (const void *)smx_vecp<1, SL_F32>
                                : dt == SL_BF16 ? (const void *)smx_vecp<1, SL_BF16>
                                                : (const void *)smx_vecp<1, SL_F16>,
                                VECP_BLOCK, 0, out);
}
