/*
 * rmsnorm rung 2: a block of 256 threads per row, block-strided (coalesced)
 * scalar loads, the sum of squares reduced by warp shuffles and one value
 * per warp in shared memory (row.cuh's smx_block), then a second pass over
 * x for y = x rstd w. Compensated per-thread sums (a thread adds cols / 256
 * terms: 256 at 2^16). Any alignment, any length: the API's fallback.
 *
 * Expectation: a warp's loads now fill whole sectors, but each thread has
 * one 2- or 4-byte load in flight: 256 threads x 8 blocks per SM x 2 bytes
 * = 4 KiB in flight per SM (bf16), a tenth of Little's law's ~40 KiB, so
 * latency bound: ~10-20% of the copy in bf16, ~2x that in f32 (4 bytes a
 * load). The second pass re-reads x from L2 while the rows in flight fit.
 */
#include "rmsnorm.cuh"

enum { RB = 256 };

template <int DT, int WT> static __global__ void __launch_bounds__(RB) rms_block(rms_geo g)
{
    __shared__ float red[RB / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld);
        void *y = smx_row<DT>(g.y, r, g.ld);
        smx_kahan ss = {0.0f, 0.0f};
        for (uint64_t j = threadIdx.x; j < g.cols; j += RB) {
            const float v = smx_ld<DT>(x, j);
            ss.add(v * v);
        }
        const float rstd = rsqrtf(smx_block<RB, smx_sum_op>(ss.s, red) / (float)g.cols + g.eps);
        for (uint64_t j = threadIdx.x; j < g.cols; j += RB)
            smx_st<DT>(y, j, smx_ld<DT>(x, j) * rstd * smx_ld<WT>(g.w, j));
        if (threadIdx.x == 0)
            g.rstd[r] = rstd;
    }
}

template <int DT, int WT> struct rms_block_run {
    static sl_status run(const sl_args *a)
    {
        rms_geo g = rms_geo_of(a);
        rms_block<DT, WT><<<smx_row_grid(g.rows), RB, 0, (cudaStream_t)a->stream>>>(g);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_rmsnorm_block(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", "block");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_RMS_W), rms_block_run, a);
}
