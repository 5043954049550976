/*
 * rmsnorm rung 1: one thread per row (the CPU loop moved to the GPU).
 * Each thread walks its row twice, element by element: the sum of squares
 * (compensated: a thread adds up to cols terms), then y = x rstd w.
 *
 * Expectation: a warp's 32 loads hit 32 rows, 32 sectors for 64 useful
 * bytes (bf16): ~1/16 of each sector used while it sits in L1, and 2 bytes
 * in flight per thread. With M = 32768 rows there are only 32768 threads
 * (~250 per SM), ~0.5 KiB in flight per SM against Little's law's ~40 KiB:
 * latency bound, a few percent of the copy. Any alignment, any length.
 */
#include "rmsnorm.cuh"

template <int DT, int WT> static __global__ void __launch_bounds__(128) rms_naive(rms_geo g)
{
    const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= g.rows)
        return;
    const void *x = smx_row<DT>(g.x, r, g.ld);
    void *y = smx_row<DT>(g.y, r, g.ld);
    smx_kahan ss = {0.0f, 0.0f};
    for (uint64_t j = 0; j < g.cols; j++) {
        const float v = smx_ld<DT>(x, j);
        ss.add(v * v);
    }
    const float rstd = rsqrtf(ss.s / (float)g.cols + g.eps);
    for (uint64_t j = 0; j < g.cols; j++)
        smx_st<DT>(y, j, smx_ld<DT>(x, j) * rstd * smx_ld<WT>(g.w, j));
    g.rstd[r] = rstd;
}

template <int DT, int WT> struct rms_naive_run {
    static sl_status run(const sl_args *a)
    {
        rms_geo g = rms_geo_of(a);
        const uint64_t blocks = (g.rows + 127) / 128;
        if (blocks > 0x7fffffffu)
            return sl_fail(SL_ERR_UNSUPPORTED, "rmsnorm naive: %llu rows need more than 2^31 - 1 blocks",
                           (unsigned long long)g.rows);
        rms_naive<DT, WT><<<(unsigned)blocks, 128, 0, (cudaStream_t)a->stream>>>(g);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_rmsnorm_naive(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", "naive");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_RMS_W), rms_naive_run, a);
}
