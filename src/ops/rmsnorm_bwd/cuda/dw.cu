/*
 * The dw partials' column pass (for the naive and block rungs, which do
 * not keep dw in registers) and the finish every rung ends with: the
 * deterministic two-pass sum over rows (issue 32: no floating-point
 * atomics).
 */
#include "norm.cuh"
#include "rmsnorm_bwd.h"

/* A thread per column j (a warp reads 32 consecutive columns: coalesced),
 * block y of the grid the rows [256 y, 256 y + 256): 256 terms in order,
 * part[y][j] (SL_NORM_DW_ROWS). Reads x and dy once more (the price of
 * this rung's separate pass). */
template <int DT>
static __global__ void __launch_bounds__(256)
    dw_cols(const void *x, const void *dy, const float *rstd, float *part, uint64_t rows, uint64_t cols, uint64_t ld)
{
    const uint64_t j = (uint64_t)blockIdx.x * 256 + threadIdx.x;
    if (j >= cols)
        return;
    const uint64_t r0 = (uint64_t)blockIdx.y * SL_NORM_DW_ROWS;
    const uint64_t r1 = r0 + SL_NORM_DW_ROWS < rows ? r0 + SL_NORM_DW_ROWS : rows;
    float s = 0.0f;
    for (uint64_t r = r0; r < r1; r++)
        s = fmaf(smx_ld<DT>(smx_row<DT>(dy, r, ld), j) * rstd[r], smx_ld<DT>(smx_row<DT>(x, r, ld), j), s);
    part[(uint64_t)blockIdx.y * cols + j] = s;
}

template <int DT> struct dw_cols_run {
    static sl_status run(const sl_args *a)
    {
        const uint64_t rows = a->shape.rows, cols = a->shape.cols, ld = a->shape.ld ? a->shape.ld : cols;
        const uint64_t P = (rows + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS;
        if (a->workspace_bytes < P * cols * sizeof(float) || (cols + 255) / 256 > 0x7fffffffu || P > 65535)
            return sl_fail(SL_ERR_INVALID_ARG, "rmsnorm_bwd: workspace of %zu bytes for %llu dw partials of %llu",
                           a->workspace_bytes, (unsigned long long)P, (unsigned long long)cols);
        dim3 grid((unsigned)((cols + 255) / 256), (unsigned)P);
        dw_cols<DT><<<grid, 256, 0, (cudaStream_t)a->stream>>>(a->buf[SL_RMSB_X], a->buf[SL_RMSB_DY],
                                                                (const float *)a->buf[SL_RMSB_RSTD],
                                                                (float *)a->workspace, rows, cols, ld);
        SL_CUDA_LAUNCHED();
        return sl_cuda_norm_dw_finish((const float *)a->workspace, P, cols, a->buf[SL_RMSB_DW],
                                      norm_wdtype(a, SL_RMSB_W), a->stream);
    }
};

extern "C" sl_status sl_cuda_rmsnorm_dw_cols(const sl_args *a)
{
    return a->dtype == SL_F32 ? dw_cols_run<SL_F32>::run(a)
           : a->dtype == SL_BF16 ? dw_cols_run<SL_BF16>::run(a)
                                 : dw_cols_run<SL_F16>::run(a);
}

/* 32 columns a block (threadIdx.x: one 128-byte line of a partial row per
 * warp), 32 groups of partials (threadIdx.y: partials y, y + 32, ...),
 * each summed in fp64 in order, then the 32 groups in order by the first
 * row of threads. P / 32 dependent loads per thread at most: a few
 * microseconds even where P ~ 500 and cols = 1024 (32 blocks). Grid row
 * blockIdx.y: the first sum (part into dw) or the second (partb into db),
 * so that layernorm's two finish in one launch. */
template <int WT>
static __global__ void __launch_bounds__(1024)
    dw_finish(const float *part, const float *partb, uint64_t P, uint64_t cols, void *dw, void *db)
{
    __shared__ double s[32][33];
    const float *pp = blockIdx.y ? partb : part;
    const uint64_t j = (uint64_t)blockIdx.x * 32 + threadIdx.x;
    double t = 0.0;
    if (j < cols)
        for (uint64_t p = threadIdx.y; p < P; p += 32)
            t += (double)pp[p * cols + j];
    s[threadIdx.y][threadIdx.x] = t;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        double u = 0.0;
        for (int y = 0; y < 32; y++)
            u += s[y][threadIdx.x];
        ((typename sl_dt<WT>::raw *)(blockIdx.y ? db : dw))[j] = sl_dt<WT>::store((float)u);
    }
}

extern "C" sl_status sl_cuda_norm_dwdb_finish(const float *part, const float *partb, uint64_t P, uint64_t cols,
                                              void *dw, void *db, sl_dtype wt, void *stream)
{
    const uint64_t blocks = (cols + 31) / 32;
    if (blocks > 0x7fffffffu)
        return sl_fail(SL_ERR_UNSUPPORTED, "norm dw: %llu columns", (unsigned long long)cols);
    dim3 grid((unsigned)blocks, partb ? 2u : 1u), block(32, 32);
    cudaStream_t s = (cudaStream_t)stream;
    if (wt == SL_F32)
        dw_finish<SL_F32><<<grid, block, 0, s>>>(part, partb, P, cols, dw, db);
    else if (wt == SL_BF16)
        dw_finish<SL_BF16><<<grid, block, 0, s>>>(part, partb, P, cols, dw, db);
    else
        dw_finish<SL_F16><<<grid, block, 0, s>>>(part, partb, P, cols, dw, db);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_norm_dw_finish(const float *part, uint64_t P, uint64_t cols, void *dw, sl_dtype wt,
                                            void *stream)
{
    return sl_cuda_norm_dwdb_finish(part, NULL, P, cols, dw, NULL, wt, stream);
}
