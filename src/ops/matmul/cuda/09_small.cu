/*
 * 09_small.cu - rung 9: small and skinny f32 products (issue 19), the
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
 * coalesced 128-byte row of B, four LDS.128 broadcasts of A and 16 fmas.
 * Software-pipelined: the next step's 16 B elements and 8 A elements per
 * thread are loaded into registers while this step's fmas run, so a step
 * costs max(one L2 round trip, its fmas) instead of their sum (the first
 * version, without it: 21 us event-timed at 64 x 300 x 784 on the H200). At the end the 8 partial sums of each entry
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

#define SM_AV (SM_BM * SM_BK / (SM_WARPS * 32)) /* A slice elements per thread per step */

/* one step's operands into registers: B rows k0 + q * 8 + warp at column
 * j (bv), and this thread's SM_AV elements of the 16 x 128 A slice (av):
 * element e = threadIdx.x + t * 256 is row e / 128 = r0 + 2 t, column
 * e % 128 = kk, so a warp reads 32 consecutive k of one row. bp points at
 * B row warp, column j; ap at A row i0 + r0, column kk. Out-of-range
 * elements are 0; kb = k - warp. */
__device__ __forceinline__ void load_step(int64_t k0, int64_t k, int64_t kb, bool jok, const float *__restrict__ bp, int64_t ldb,
                                          const float *__restrict__ ap, int64_t lda, int rows_left, int kk,
                                          float *bv, float *av)
{
#pragma unroll
    for (int q = 0; q < SM_KPW; q++) {
        const int64_t gk = k0 + q * SM_WARPS;
        bv[q] = (jok && gk < kb) ? bp[gk * ldb] : 0.0f; /* row gk + warp < k */
    }
    const bool kok = k0 + kk < k;
#pragma unroll
    for (int t = 0; t < SM_AV; t++)
        av[t] = (kok && 2 * t < rows_left) ? ap[2 * t * lda + k0] : 0.0f;
}

__global__ void __launch_bounds__(SM_WARPS * 32, 2) mm_small_kernel(int64_t m, int64_t n, int64_t k,
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
    /* software pipeline: the next step's B row elements and A slice are
     * loaded into registers while this step's fmas run */
    float bv[SM_KPW], av[SM_AV];
    const int r0 = threadIdx.x / SM_BK, kk = threadIdx.x % SM_BK;
    const bool jok = j < n;
    const float *bp = b + (int64_t)warp * ldb + (jok ? j : 0);
    const int64_t ai = i0 + r0 < m ? i0 + r0 : 0;
    const float *ap = a + ai * lda + kk;
    const int rows_left = (int)(m - i0 - r0 < 2 * SM_AV ? m - i0 - r0 : 2 * SM_AV);
    load_step(0, k, k - warp, jok, bp, ldb, ap, lda, rows_left, kk, bv, av);
    for (int64_t k0 = 0; k0 < k; k0 += SM_BK) {
#pragma unroll
        for (int t = 0; t < SM_AV; t++) {
            const int e = threadIdx.x + t * SM_WARPS * 32;
            as[e % SM_BK][e / SM_BK] = av[t];
        }
        __syncthreads();
        float bn[SM_KPW];
#pragma unroll
        for (int q = 0; q < SM_KPW; q++)
            bn[q] = bv[q];
        if (k0 + SM_BK < k)
            load_step(k0 + SM_BK, k, k - warp, jok, bp, ldb, ap, lda, rows_left, kk, bv, av);
#pragma unroll
        for (int q = 0; q < SM_KPW; q++) {
            const float4 *ar = reinterpret_cast<const float4 *>(&as[q * SM_WARPS + warp][0]);
#pragma unroll
            for (int r4 = 0; r4 < SM_BM / 4; r4++) {
                const float4 x = ar[r4];
                acc[4 * r4 + 0] = fmaf(x.x, bn[q], acc[4 * r4 + 0]);
                acc[4 * r4 + 1] = fmaf(x.y, bn[q], acc[4 * r4 + 1]);
                acc[4 * r4 + 2] = fmaf(x.z, bn[q], acc[4 * r4 + 2]);
                acc[4 * r4 + 3] = fmaf(x.w, bn[q], acc[4 * r4 + 3]);
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
