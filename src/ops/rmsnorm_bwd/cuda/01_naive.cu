/*
 * rmsnorm backward rung 1: dw by the column pass (dw.cu: a thread per
 * column, 256 rows a partial, then the fp64 finish), then one thread per
 * row for dx: D = sum_j w dy x (compensated), then
 *   dx_j = rstd (w_j dy_j) - x_j (rstd^3 D / cols).
 * dw first: in place (dx = dy or dx = x) the column pass must read the
 * inputs before dx overwrites them.
 *
 * Expectation: the dx pass is rung 1 of the forward (a warp's loads hit 32
 * rows: latency bound, a few percent of the copy); the column pass reads x
 * and dy once more, coalesced. Any alignment.
 */
#include "rmsnorm_bwd.cuh"

template <int DT, int WT> static __global__ void __launch_bounds__(128) rmsb_naive(rmsb_geo g)
{
    const uint64_t r = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= g.rows)
        return;
    const void *x = smx_row<DT>(g.x, r, g.ld), *dy = smx_row<DT>(g.dy, r, g.ld);
    void *dx = smx_row<DT>(g.dx, r, g.ld);
    smx_kahan d = {0.0f, 0.0f};
    for (uint64_t j = 0; j < g.cols; j++)
        d.add(smx_ld<WT>(g.w, j) * smx_ld<DT>(dy, j) * smx_ld<DT>(x, j));
    const float rs = g.rstd[r], c = d.s / (float)g.cols * rs * rs * rs;
    for (uint64_t j = 0; j < g.cols; j++) {
        const float xv = smx_ld<DT>(x, j), wdy = smx_ld<WT>(g.w, j) * smx_ld<DT>(dy, j);
        smx_st<DT>(dx, j, fmaf(-xv, c, rs * wdy));
    }
}

template <int DT, int WT> struct rmsb_naive_run {
    static sl_status run(const sl_args *a)
    {
        rmsb_geo g = rmsb_geo_of(a, 0);
        const uint64_t blocks = (g.rows + 127) / 128;
        if (blocks > 0x7fffffffu)
            return sl_fail(SL_ERR_UNSUPPORTED, "rmsnorm_bwd naive: %llu rows", (unsigned long long)g.rows);
        rmsb_naive<DT, WT><<<(unsigned)blocks, 128, 0, (cudaStream_t)a->stream>>>(g);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_rmsnorm_bwd_naive(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", "naive");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if ((st = sl_cuda_rmsnorm_dw_cols(a)) != SL_OK)
        return st;
    return NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_RMSB_W), rmsb_naive_run, a);
}
