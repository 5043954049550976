/*
 * softmax backward rung 1: the textbook two passes. One block of 512
 * threads per row (rows grid-stride beyond 2^31 - 1), block-strided
 * (coalesced) scalar loads: pass 1 forms s = sum_j y_j dy_j (each thread
 * its columns in order, then a warp butterfly and a block fold,
 * softmax.cuh's smx_block), pass 2 reads y and dy again and writes
 * dx = y (dy - s). Any alignment of the three matrices; safe in place
 * (dx = dy or dx = y): the block's barrier in the reduction orders every
 * read of pass 1 before any write, and in pass 2 an element is read and
 * written by the same thread.
 *
 * Expectation: bytes moved 4 N x size per row (y and dy twice, dx once)
 * against the useful 3 N x size; where the rows in flight (132 SMs x 2
 * rows x 2 N x size) fit in half the L2 the re-read hits L2 and the rung
 * is limited by one 4-byte (f32) or 2-byte access per thread per load,
 * about 1 load in flight per thread: latency-bound at ~40-60% of the copy.
 */
#include "sbwd.cuh"

enum { TP_BLOCK = 512 };

template <int DT> static __global__ void __launch_bounds__(TP_BLOCK) sbwd_twopass(sbwd_geo g)
{
    __shared__ float red[TP_BLOCK / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *y = smx_row<DT>(g.y, r, g.ld), *dy = smx_row<DT>(g.g, r, g.ld);
        void *dx = smx_row<DT>(g.d, r, g.ld);
        float s = 0.0f;
        for (uint64_t j = threadIdx.x; j < g.cols; j += TP_BLOCK)
            s = fmaf(smx_ld<DT>(y, j), smx_ld<DT>(dy, j), s);
        s = smx_block<TP_BLOCK, smx_sum_op>(s, red);
        for (uint64_t j = threadIdx.x; j < g.cols; j += TP_BLOCK)
            smx_st<DT>(dx, j, smx_ld<DT>(y, j) * (smx_ld<DT>(dy, j) - s));
    }
}

struct tp_launch {
    template <int DT> static sl_status run(const sl_args *a)
    {
        sbwd_twopass<DT><<<smx_row_grid(a->shape.rows), TP_BLOCK, 0, (cudaStream_t)a->stream>>>(sbwd_geo_of(a));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_softmax_bwd_twopass(const sl_args *a)
{
    sl_status st = sbwd_check(a, "twopass");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return SMX_DISPATCH(a, tp_launch::run, a);
}

extern "C" sl_status sl_cuda_softmax_bwd_twopass_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(SMX_KERNEL_FOR(dt, sbwd_twopass), TP_BLOCK, 0, out);
}
