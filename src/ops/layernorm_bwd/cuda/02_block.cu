/*
 * layernorm backward rung 2 (the API's fallback): dw and db by a column
 * pass (a thread per column j, block y of the grid the rows [256 y, 256 y
 * + 256): part[y][j] = sum dy xh, partb[y][j] = sum dy, 256 terms in
 * order each; rmsnorm_bwd's dw.cu finish adds the partials in fp64), then
 * a block of 256 threads per row for dx: coalesced scalar loads, the two
 * row sums (compensated per thread, then row.cuh's smx_block), then a
 * second pass for dx. Any alignment, any length. The column pass runs
 * first: in place (dx = dy or x) it must read the inputs before dx
 * overwrites them.
 *
 * Expectation: as rmsnorm_bwd's block rung: latency bound at one 2-4 byte
 * load in flight per thread per stream, ~15-25% of the copy; the column
 * pass's second read of x and dy costs as much again.
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

enum { LB = 256 };

template <int DT>
static __global__ void __launch_bounds__(256)
    ln_dwdb_cols(const void *x, const void *dy, const float *mean, const float *rstd, float *part, float *partb,
                 uint64_t rows, uint64_t cols, uint64_t ld)
{
    const uint64_t j = (uint64_t)blockIdx.x * 256 + threadIdx.x;
    if (j >= cols)
        return;
    const uint64_t r0 = (uint64_t)blockIdx.y * SL_NORM_DW_ROWS;
    const uint64_t r1 = r0 + SL_NORM_DW_ROWS < rows ? r0 + SL_NORM_DW_ROWS : rows;
    float s = 0.0f, sb = 0.0f;
    for (uint64_t r = r0; r < r1; r++) {
        const float d = smx_ld<DT>(smx_row<DT>(dy, r, ld), j);
        s = fmaf(d, (smx_ld<DT>(smx_row<DT>(x, r, ld), j) - mean[r]) * rstd[r], s);
        sb += d;
    }
    part[(uint64_t)blockIdx.y * cols + j] = s;
    partb[(uint64_t)blockIdx.y * cols + j] = sb;
}

template <int DT, int WT> static __global__ void __launch_bounds__(LB) ln_bwd_block(norm_bwd_geo g)
{
    __shared__ float red[LB / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld), *dy = smx_row<DT>(g.dy, r, g.ld);
        void *dx = smx_row<DT>(g.dx, r, g.ld);
        const float rs = g.rstd[r], mu = g.mean[r];
        smx_kahan s1 = {0.0f, 0.0f}, s2 = {0.0f, 0.0f};
        for (uint64_t j = threadIdx.x; j < g.cols; j += LB) {
            const float gj = smx_ld<WT>(g.w, j) * smx_ld<DT>(dy, j);
            s1.add(gj);
            s2.add(gj * ((smx_ld<DT>(x, j) - mu) * rs));
        }
        const float c1 = smx_block<LB, smx_sum_op>(s1.s, red) / (float)g.cols;
        const float c2 = smx_block<LB, smx_sum_op>(s2.s, red) / (float)g.cols;
        for (uint64_t j = threadIdx.x; j < g.cols; j += LB) {
            const float xh = (smx_ld<DT>(x, j) - mu) * rs, gj = smx_ld<WT>(g.w, j) * smx_ld<DT>(dy, j);
            smx_st<DT>(dx, j, fmaf(-xh, c2, gj - c1) * rs);
        }
    }
}

static norm_bwd_geo lnb_geo_of(const sl_args *a)
{
    const uint64_t cols = a->shape.cols, Pm = sl_norm_dw_partials(a->shape.rows, cols);
    norm_bwd_geo g = {a->buf[SL_LNB_X], a->buf[SL_LNB_DY], a->buf[SL_LNB_W], (const float *)a->buf[SL_LNB_MEAN],
                      (const float *)a->buf[SL_LNB_RSTD], a->buf[SL_LNB_DX], (float *)a->workspace,
                      (float *)a->workspace + Pm * cols, a->shape.rows, cols,
                      a->shape.ld ? a->shape.ld : cols, 0};
    return g;
}

template <int DT, int WT> struct ln_bwd_block_run {
    static sl_status run(const sl_args *a)
    {
        const norm_bwd_geo g = lnb_geo_of(a);
        const uint64_t P = (g.rows + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS;
        if (a->workspace_bytes < sl_layernorm_bwd_ws(g.rows, g.cols) || P > sl_norm_dw_partials(g.rows, g.cols) ||
            (g.cols + 255) / 256 > 0x7fffffffu || P > 65535)
            return sl_fail(SL_ERR_INVALID_ARG, "layernorm_bwd block: workspace of %zu bytes for %llu partials of %llu",
                           a->workspace_bytes, (unsigned long long)P, (unsigned long long)g.cols);
        cudaStream_t s = (cudaStream_t)a->stream;
        dim3 grid((unsigned)((g.cols + 255) / 256), (unsigned)P);
        ln_dwdb_cols<DT><<<grid, 256, 0, s>>>(g.x, g.dy, g.mean, g.rstd, g.part, g.partb, g.rows, g.cols, g.ld);
        SL_CUDA_LAUNCHED();
        const sl_dtype wt = norm_wdtype(a, SL_LNB_W);
        sl_status st =
            sl_cuda_norm_dwdb_finish(g.part, g.partb, P, g.cols, a->buf[SL_LNB_DW], a->buf[SL_LNB_DB], wt, a->stream);
        if (st != SL_OK)
            return st;
        ln_bwd_block<DT, WT><<<smx_row_grid(g.rows), LB, 0, s>>>(g);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_layernorm_bwd_block(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_LNB_W, "layernorm_bwd", "block");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_LNB_W), ln_bwd_block_run, a);
}
