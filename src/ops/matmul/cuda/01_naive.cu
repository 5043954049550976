/*
 * 01_naive.cu - rung 1: one thread per element of C (seed 002, "matmul").
 *
 * Change: none; the baseline. Thread (i, j) walks row i of A and column j
 * of B from global memory, K fmas in an fp32 chain.
 * Arithmetic intensity: per fma it loads one A and one B element (8 bytes
 * for 2 flops: 0.25 flop/B at L1). A 16x16 block shares rows and columns
 * through L1/L2, so DRAM sees far less; the loads through L1 are the limit.
 * Expected limiter: the load/store path (L1 / LSU), not DRAM and not the
 * FMA units: every fma waits on two loads. Columns j are the fast thread
 * index, so B and C accesses coalesce and a warp's A loads are a broadcast.
 */
#include "mm_common.cuh"

#define BX 16
#define BY 16

__global__ void __launch_bounds__(BX *BY) mm_naive_kernel(int64_t m, int64_t n, int64_t k, const float *__restrict__ a,
                                                          int64_t lda, const float *__restrict__ b, int64_t ldb,
                                                          float *c, int64_t ldc, float alpha, float beta)
{
    const int64_t j = (int64_t)blockIdx.x * BX + threadIdx.x;
    const int64_t i = (int64_t)blockIdx.y * BY + threadIdx.y;
    if (i >= m || j >= n)
        return;
    const float *ar = a + i * lda, *bc = b + j;
    float acc = 0.0f;
    for (int64_t kk = 0; kk < k; kk++)
        acc = fmaf(ar[kk], bc[kk * ldb], acc);
    mm_store(c, ldc, i, j, acc, alpha, beta);
}

extern "C" sl_status sl_cuda_mm_naive(const sl_mm *p)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul naive");
    dim3 g;
    if (st == SL_OK)
        st = mm_grid(p, BY, BX, "matmul naive", &g);
    if (st != SL_OK)
        return st;
    mm_naive_kernel<<<g, dim3(BX, BY), 0, (cudaStream_t)p->stream>>>(p->m, p->n, p->k, (const float *)p->a, p->lda,
                                                                     (const float *)p->b, p->ldb, (float *)p->c,
                                                                     p->ldc, (float)p->alpha, (float)p->beta);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
