/*
 * 02_smem.cu - rung 2: seed 002's 32x32 shared-memory tile, its bound
 * check fixed.
 *
 * Change: a block of 32x32 threads stages a 32x32 tile of A and of B in
 * shared memory per step of 32 along K; each thread then does 32 fmas from
 * shared memory. The seed guards the A load with `tile_offset * tx < n`
 * (and B with `tile_offset * ty < n`); the column of A a thread loads is
 * tile_offset + tx, so the guard must be `tile_offset + tx < K` (and
 * `tile_offset + ty < K` for B's row): with `*`, a K that is not a multiple
 * of 32 reads past the row (and the first tile is never guarded).
 * Out-of-range elements load as 0, so any M, N, K >= 1 works.
 * Arithmetic intensity: per tile step a block loads 2 x 32 x 32 x 4 bytes
 * from global memory and does 2 x 32^3 flops: 8 flop/B to L2 / DRAM (K
 * re-reads of each input are divided by 32). Shared memory: 2 loads per
 * fma (a broadcast of A, a row of B): 0.25 flop/B to shared memory.
 * Expected limiter: shared-memory bandwidth (two LDS per FFMA), far below
 * the FMA peak; the seed measured it 20% faster than naive.
 */
#include "mm_common.cuh"

#define T 32

__global__ void __launch_bounds__(T *T) mm_smem_kernel(int64_t m, int64_t n, int64_t k, const float *__restrict__ a,
                                                       int64_t lda, const float *__restrict__ b, int64_t ldb, float *c,
                                                       int64_t ldc, float alpha, float beta)
{
    __shared__ float as[T][T];
    __shared__ float bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t i = (int64_t)blockIdx.y * T + ty, j = (int64_t)blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int64_t t0 = 0; t0 < k; t0 += T) {
        as[ty][tx] = (i < m && t0 + tx < k) ? a[i * lda + t0 + tx] : 0.0f;
        bs[ty][tx] = (t0 + ty < k && j < n) ? b[(t0 + ty) * ldb + j] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < T; q++)
            acc = fmaf(as[ty][q], bs[q][tx], acc);
        __syncthreads();
    }
    if (i < m && j < n)
        mm_store(c, ldc, i, j, acc, alpha, beta);
}

extern "C" sl_status sl_cuda_mm_smem(const sl_mm *p)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul smem");
    dim3 g;
    if (st == SL_OK)
        st = mm_grid(p, T, T, "matmul smem", &g);
    if (st != SL_OK)
        return st;
    mm_smem_kernel<<<g, dim3(T, T), 0, (cudaStream_t)p->stream>>>(p->m, p->n, p->k, (const float *)p->a, p->lda,
                                                                  (const float *)p->b, p->ldb, (float *)p->c, p->ldc,
                                                                  (float)p->alpha, (float)p->beta);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
