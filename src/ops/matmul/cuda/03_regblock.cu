/*
 * 03_regblock.cu - rung 3: thread coarsening / 2-D register blocking.
 *
 * Change: a block of 256 threads computes a 128x128 tile of C; each thread
 * an 8x8 micro-tile (TM x TN = 8 x 8) held in 64 registers. Per step of
 * BK = 8 along K the block stages A (128 x 8) and B (8 x 128) in shared
 * memory with scalar loads; per k a thread reads 8 A and 8 B values from
 * shared memory into registers and does 64 fmas with them (an outer
 * product).
 * Arithmetic intensity: per K step a block loads (128 + 128) x 8 x 4 bytes
 * (8 KiB) and does 2 x 128 x 128 x 8 flops: 32 flop/B to L2 / DRAM. Shared:
 * 16 loads of 4 bytes per 64 fmas: 2 flop/B (8x rung 2's).
 * Expected limiter: the FMA pipe begins to matter, but the A tile is
 * stored row-major (as[m][k]), so a thread's 8 A values are 8 scalar LDS
 * at a stride of BK words and its 8 B values are read at a stride of 8
 * words across the warp (bank conflicts); instruction issue (LDS + FFMA)
 * and conflicts keep it well under the FP32 peak. Rung 4 fixes both.
 */
#include "mm_common.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT ((BM / TM) * (BN / TN)) /* 256 threads */

__global__ void __launch_bounds__(NT) mm_regblock_kernel(int64_t m, int64_t n, int64_t k, const float *__restrict__ a,
                                                         int64_t lda, const float *__restrict__ b, int64_t ldb,
                                                         float *c, int64_t ldc, float alpha, float beta)
{
    __shared__ float as[BM][BK];
    __shared__ float bs[BK][BN];
    const int tid = threadIdx.x;
    const int tr = tid / (BN / TN), tc = tid % (BN / TN); /* the thread's micro-tile: rows tr*TM.., cols tc*TN.. */
    const int64_t i0 = (int64_t)blockIdx.y * BM, j0 = (int64_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    float ra[TM], rb[TN];
    for (int64_t t0 = 0; t0 < k; t0 += BK) {
        /* 1024 elements of each tile, 4 per thread, guarded (zeros outside) */
#pragma unroll
        for (int q = 0; q < (BM * BK) / NT; q++) {
            const int e = tid + q * NT, r = e / BK, cc = e % BK;
            const int64_t gi = i0 + r, gk = t0 + cc;
            as[r][cc] = (gi < m && gk < k) ? a[gi * lda + gk] : 0.0f;
        }
#pragma unroll
        for (int q = 0; q < (BK * BN) / NT; q++) {
            const int e = tid + q * NT, r = e / BN, cc = e % BN;
            const int64_t gk = t0 + r, gj = j0 + cc;
            bs[r][cc] = (gk < k && gj < n) ? b[gk * ldb + gj] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < BK; q++) {
#pragma unroll
            for (int x = 0; x < TM; x++)
                ra[x] = as[tr * TM + x][q];
#pragma unroll
            for (int y = 0; y < TN; y++)
                rb[y] = bs[q][tc * TN + y];
#pragma unroll
            for (int x = 0; x < TM; x++)
#pragma unroll
                for (int y = 0; y < TN; y++)
                    acc[x][y] = fmaf(ra[x], rb[y], acc[x][y]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int x = 0; x < TM; x++)
#pragma unroll
        for (int y = 0; y < TN; y++) {
            const int64_t i = i0 + tr * TM + x, j = j0 + tc * TN + y;
            if (i < m && j < n)
                mm_store(c, ldc, i, j, acc[x][y], alpha, beta);
        }
}

extern "C" sl_status sl_cuda_mm_regblock(const sl_mm *p)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul regblock");
    dim3 g;
    if (st == SL_OK)
        st = mm_grid(p, BM, BN, "matmul regblock", &g);
    if (st != SL_OK)
        return st;
    mm_regblock_kernel<<<g, NT, 0, (cudaStream_t)p->stream>>>(p->m, p->n, p->k, (const float *)p->a, p->lda,
                                                              (const float *)p->b, p->ldb, (float *)p->c, p->ldc,
                                                              (float)p->alpha, (float)p->beta);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
