/*
 * 08_small.cu - rung 8: small and skinny f32 products (issue 19), the
 * shapes an MLP's training step makes (64 x 300 x 784, 784 x 300 x 64,
 * 64 x 100 x 300, ...), where rung 5's 128 x 128 block tiles leave the GPU
 * idle: a 64 x 300 product is 3 of those blocks on 132 SMs, each walking
 * all of K alone.
 *
 * Change: 16 x 32 block tiles (40 blocks for 64 x 300), and K split across
 * the block's 8 warps instead of across blocks: per step of 128 along K
 * the block stages the 16 x 128 slice of A in shared memory (transposed,
 * rows padded to 20 floats: 4-way store conflicts, conflict-free LDS.128
 * broadcasts), and warp w takes the k = w, w + 8, ... of the step; lane l
 * owns column l of the tile and keeps its 16 rows in registers: per k one
 * coalesced 128-byte row of B (loaded for the whole step before the
 * shared-memory wait, 16 loads in flight per warp), four LDS.128
 * broadcasts of A and 16 fmas. At the end the 8 partial sums of each entry
 * are added in warp order through shared memory (deterministic), then
 * C = alpha acc + beta C (C not read when beta == 0).
 * Numerics: each entry is 8 fp32 fma chains of about K / 8 terms plus 7
 * additions, a shorter chain than rung 5's K: within the same bound.
 * Any M, N, K >= 1, any leading dimensions (scalar loads, no alignment
 * beyond 4 bytes).
 * Expected limiter: latency (a few warps per SM, one L2 round trip per
 * step of 128) for the skinny shapes it is chosen for; sl_gemm takes it
 * when rung 5's grid would have fewer than 32 blocks (a quarter of the
 * H200's SMs), matmul.c.
 */
#include "mm_common.cuh"

#define SM_BM 16
#define SM_BN 32
#define SM_BK 128
#define SM_WARPS 8
#define SM_KPW (SM_BK / SM_WARPS) /* k per warp per step */
#define SM_PAD 20                 /* row stride of the A slice: a multiple of 4 floats for LDS.128 */

__global__ void __launch_bounds__(SM_WARPS * 32) mm_small_kernel(int64_t m, int64_t n, int64_t k,
                                                                 const float *__restrict__ a, int64_t lda,
                                                                 const float *__restrict__ b, int64_t ldb, float *c,
                                                                 int64_t ldc, float alpha, float beta)
{
    __shared__ __align__(16) float as[SM_BK][SM_PAD];
    __shared__ float red[SM_WARPS][SM_BM][SM_BN];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t i0 = (int64_t)blockIdx.y * SM_BM, j = (int64_t)blockIdx.x * SM_BN + lane;
    float acc[SM_BM];
#pragma unroll
    for (int r = 0; r < SM_BM; r++)
        acc[r] = 0.0f;
    for (int64_t k0 = 0; k0 < k; k0 += SM_BK) {
        float bv[SM_KPW];
#pragma unroll
        for (int q = 0; q < SM_KPW; q++) {
            const int64_t gk = k0 + q * SM_WARPS + warp;
            bv[q] = (gk < k && j < n) ? b[gk * ldb + j] : 0.0f;
        }
        for (int e = threadIdx.x; e < SM_BM * SM_BK; e += SM_WARPS * 32) {
            const int r = e / SM_BK, kk = e % SM_BK; /* a warp reads 32 consecutive k of one row */
            const int64_t gi = i0 + r, gk = k0 + kk;
            as[kk][r] = (gi < m && gk < k) ? a[gi * lda + gk] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < SM_KPW; q++) {
            const float4 *ar = reinterpret_cast<const float4 *>(&as[q * SM_WARPS + warp][0]);
#pragma unroll
            for (int r4 = 0; r4 < SM_BM / 4; r4++) {
                const float4 av = ar[r4];
                acc[4 * r4 + 0] = fmaf(av.x, bv[q], acc[4 * r4 + 0]);
                acc[4 * r4 + 1] = fmaf(av.y, bv[q], acc[4 * r4 + 1]);
                acc[4 * r4 + 2] = fmaf(av.z, bv[q], acc[4 * r4 + 2]);
                acc[4 * r4 + 3] = fmaf(av.w, bv[q], acc[4 * r4 + 3]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < SM_BM; r++)
        red[warp][r][lane] = acc[r];
    __syncthreads();
    for (int e = threadIdx.x; e < SM_BM * SM_BN; e += SM_WARPS * 32) {
        const int r = e / SM_BN, col = e % SM_BN;
        float s = red[0][r][col];
#pragma unroll
        for (int w = 1; w < SM_WARPS; w++)
            s += red[w][r][col];
        const int64_t gi = i0 + r, gj = (int64_t)blockIdx.x * SM_BN + col;
        if (gi < m && gj < n)
            mm_store(c, ldc, gi, gj, s, alpha, beta);
    }
}

extern "C" sl_status sl_cuda_mm_small(const sl_mm *p)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul small");
    dim3 g;
    if (st == SL_OK)
        st = mm_grid(p, SM_BM, SM_BN, "matmul small", &g);
    if (st != SL_OK)
        return st;
    mm_small_kernel<<<g, SM_WARPS * 32, 0, (cudaStream_t)p->stream>>>(p->m, p->n, p->k, (const float *)p->a, p->lda,
                                                                      (const float *)p->b, p->ldb, (float *)p->c,
                                                                      p->ldc, (float)p->alpha, (float)p->beta);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
