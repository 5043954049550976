/*
 * layernorm rung 2 (the API's fallback): a block of 256 threads per row,
 * block-strided (coalesced) scalar loads, three passes over the row: the
 * sum (compensated per thread, then row.cuh's smx_block), the squared
 * deviations from the mean (likewise), then y. Any alignment, any length.
 *
 * Expectation: as rmsnorm's block rung (latency bound: one 2-4 byte load
 * in flight per thread, ~10-20% of the copy in bf16), with a third pass
 * over x, from L2 while the rows in flight fit.
 */
#include "ln_regs.cuh"

enum { LB = 256 };

template <int DT, int WT> static __global__ void __launch_bounds__(LB) ln_block(norm_fwd_geo g)
{
    __shared__ float red[LB / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld);
        void *y = smx_row<DT>(g.y, r, g.ld);
        smx_kahan s = {0.0f, 0.0f};
        for (uint64_t j = threadIdx.x; j < g.cols; j += LB)
            s.add(smx_ld<DT>(x, j));
        const float mu = smx_block<LB, smx_sum_op>(s.s, red) / (float)g.cols;
        smx_kahan q = {0.0f, 0.0f};
        for (uint64_t j = threadIdx.x; j < g.cols; j += LB) {
            const float d = smx_ld<DT>(x, j) - mu;
            q.add(d * d);
        }
        const float rstd = rsqrtf(smx_block<LB, smx_sum_op>(q.s, red) / (float)g.cols + g.eps);
        for (uint64_t j = threadIdx.x; j < g.cols; j += LB)
            smx_st<DT>(y, j, fmaf((smx_ld<DT>(x, j) - mu) * rstd, smx_ld<WT>(g.w, j), smx_ld<WT>(g.b, j)));
        if (threadIdx.x == 0) {
            g.mean[r] = mu;
            g.rstd[r] = rstd;
        }
    }
}

template <int DT, int WT> struct ln_block_run {
    static sl_status run(const sl_args *a)
    {
        ln_block<DT, WT><<<smx_row_grid(a->shape.rows), LB, 0, (cudaStream_t)a->stream>>>(ln_geo_of(a));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_layernorm_block(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_LN_W, "layernorm", "block");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_LN_W), ln_block_run, a);
}
