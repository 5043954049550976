/*
 * rmsnorm backward rung 2: dw by the column pass (dw.cu), then a block of
 * 256 threads per row for dx: coalesced scalar loads, D = sum w dy x per
 * thread (compensated) and over the block (row.cuh's smx_block), then a
 * second pass over x and dy for dx. Any alignment, any length: the API's
 * fallback.
 *
 * Expectation: the forward's block rung with two input streams: latency
 * bound at one 2-4 byte load in flight per thread per stream, ~15-25% of
 * the copy; the column pass's second read of x and dy costs as much again.
 */
#include "rmsnorm_bwd.cuh"

enum { RB = 256 };

template <int DT, int WT> static __global__ void __launch_bounds__(RB) rmsb_block(rmsb_geo g)
{
    __shared__ float red[RB / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld), *dy = smx_row<DT>(g.dy, r, g.ld);
        void *dx = smx_row<DT>(g.dx, r, g.ld);
        smx_kahan d = {0.0f, 0.0f};
        for (uint64_t j = threadIdx.x; j < g.cols; j += RB)
            d.add(smx_ld<WT>(g.w, j) * smx_ld<DT>(dy, j) * smx_ld<DT>(x, j));
        const float rs = g.rstd[r];
        const float c = smx_block<RB, smx_sum_op>(d.s, red) / (float)g.cols * rs * rs * rs;
        for (uint64_t j = threadIdx.x; j < g.cols; j += RB) {
            const float xv = smx_ld<DT>(x, j), wdy = smx_ld<WT>(g.w, j) * smx_ld<DT>(dy, j);
            smx_st<DT>(dx, j, fmaf(-xv, c, rs * wdy));
        }
    }
}

template <int DT, int WT> struct rmsb_block_run {
    static sl_status run(const sl_args *a)
    {
        rmsb_geo g = rmsb_geo_of(a, 0);
        rmsb_block<DT, WT><<<smx_row_grid(g.rows), RB, 0, (cudaStream_t)a->stream>>>(g);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_rmsnorm_bwd_block(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", "block");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if ((st = sl_cuda_rmsnorm_dw_cols(a)) != SL_OK)
        return st;
    return NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_RMSB_W), rmsb_block_run, a);
}
