/*
 * softmax rung 4: warp-shuffle reductions (seed 002, "Registers"). As
 * rung 3, but each reduction is a __shfl_xor_sync butterfly within the
 * warp (5 steps, in registers), one value per warp through shared memory,
 * and a fold of the 16 warp values: two barriers per reduction instead of
 * log2(512) + 2 = 11. Fixed from the seed: its second stage filled the
 * missing lanes with 0.f, wrong as the identity of max for negative rows,
 * and left the result in warp 0 only; here every thread folds the warp
 * values itself (a broadcast read of shared memory).
 *
 * Expectation: the reductions were a few microseconds' worth of barriers
 * per row at most; the three passes over the row are unchanged, so this
 * matters only where the row is short (N <= 2^12) and the time is mostly
 * latency. Long rows: as rung 3.
 */
#include "softmax.cuh"

enum { SHFL_BLOCK = 512 };

template <int DT> static __global__ void __launch_bounds__(SHFL_BLOCK) smx_shuffle(smx_geo g)
{
    __shared__ float red[SHFL_BLOCK / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld);
        float m = -CUDART_INF_F;
        for (uint64_t i = threadIdx.x; i < g.cols; i += SHFL_BLOCK)
            m = fmaxf(m, smx_ld<DT>(x, i));
        m = smx_block<SHFL_BLOCK, smx_max_op>(m, red);
        smx_kahan s = {0.0f, 0.0f};
        for (uint64_t i = threadIdx.x; i < g.cols; i += SHFL_BLOCK)
            s.add(expf(smx_ld<DT>(x, i) - m));
        const float inv = 1.0f / smx_block<SHFL_BLOCK, smx_sum_op>(s.s, red);
        void *y = smx_row<DT>(g.y, r, g.ld);
        for (uint64_t i = threadIdx.x; i < g.cols; i += SHFL_BLOCK)
            smx_st<DT>(y, i, expf(smx_ld<DT>(x, i) - m) * inv);
    }
}

template <int DT> static sl_status launch_shuffle(const sl_args *a)
{
    smx_shuffle<DT><<<smx_row_grid(a->shape.rows), SHFL_BLOCK, 0, (cudaStream_t)a->stream>>>(smx_geo_of(a));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_softmax_shuffle(const sl_args *a)
{
    sl_status st = smx_check(a, "shuffle");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return SMX_DISPATCH(a, launch_shuffle, a);
}

extern "C" sl_status sl_cuda_softmax_shuffle_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(SMX_KERNEL_FOR(dt, smx_shuffle), SHFL_BLOCK, 0, out);
}
