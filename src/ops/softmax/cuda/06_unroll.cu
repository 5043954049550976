/*
 * softmax rung 6: unrolled (seed 002, "Fine-tuned Unrolling"). As rung 5,
 * but each thread issues 4 independent 16-byte loads (vectors v, v + B,
 * v + 2B, v + 3B: still coalesced across the warp) before it uses the
 * first: instruction-level parallelism, not just a shorter loop.
 *
 * Expectation: 64 bytes in flight per thread, 32 KiB per SM with one
 * 512-thread block: close to Little's law's ~40 KiB, so a long row's read
 * passes approach the SM's share of DRAM bandwidth (4.4 TB/s / 132 = 33
 * GB/s per SM). Still three passes and one block per row: at M = 128 rows
 * of 2^17 f32 about 3 x 512 KiB per SM, ~45-50 us.
 */
#include "vec_passes.cuh"

extern "C" sl_status sl_cuda_softmax_unroll(const sl_args *a)
{
    sl_status st = smx_check(a, "unroll");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if (!vecp_aligned(a))
        return sl_cuda_softmax_shuffle(a);
    return SMX_DISPATCH(a, vecp_launch<4>::run, a);
}

extern "C" sl_status sl_cuda_softmax_unroll_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F32    ? (const void *)smx_vecp<4, SL_F32>
                                : dt == SL_BF16 ? (const void *)smx_vecp<4, SL_BF16>
                                                : (const void *)smx_vecp<4, SL_F16>,
                                VECP_BLOCK, 0, out);
}
