/*
 * 04_vec.cu - rung 4: 16-byte loads and a transposed, padded A tile.
 *
 * Change (from rung 3, same 128x128 block tile, BK = 8, 8x8 per thread):
 *  - global loads are 16 bytes (float4: LDG.128), one per thread per tile
 *    for A and one for B, where the rows allow it (base 16-byte aligned,
 *    lda and ldb multiples of 4); a ragged edge or an unaligned matrix
 *    falls back to guarded scalar loads of the same four elements;
 *  - A is stored transposed in shared memory, as[k][m], so a thread's A
 *    values for one k are contiguous and read as float4 (LDS.128). The row
 *    pitch is BM + 4 words: the four k rows a warp writes then start 4 banks
 *    apart instead of in the same bank (no store conflicts; still
 *    16-byte aligned);
 *  - a thread's 8x8 micro-tile is two 4-row by two 4-column strips 64 apart
 *    (rows tr*4 and 64 + tr*4), so a quarter-warp's LDS.128 hit 8
 *    consecutive 16-byte words: no bank conflicts.
 * Arithmetic intensity: as rung 3 (32 flop/B to L2, 8 KiB per K step),
 * shared memory 4 LDS.128 per 64 FFMA (2 flop/B, a quarter of the
 * instructions).
 * Expected limiter: the FMA pipe and issue: 64 FFMA per 4 LDS.128 and
 * ~2 LDG per 8 k; no overlap of loads with math yet (one buffer, two
 * barriers per step), which rung 5 adds.
 */
#include "mm_common.cuh"

#define BM 128
#define BN 128
#define BK 8
#define NT 256
#define PA (BM + 4) /* pitch of the transposed A tile, words */

template <bool VEC>
__global__ void __launch_bounds__(NT) mm_vec_kernel(int64_t m, int64_t n, int64_t k, const float *__restrict__ a,
                                                    int64_t lda, const float *__restrict__ b, int64_t ldb, float *c,
                                                    int64_t ldc, float alpha, float beta)
{
    __shared__ __align__(16) float as[BK][PA];
    __shared__ __align__(16) float bs[BK][BN];
    const int tid = threadIdx.x;
    const int tr = tid / 16, tc = tid % 16;
    const int64_t i0 = (int64_t)blockIdx.y * BM, j0 = (int64_t)blockIdx.x * BN;
    /* the loads: A row ar, columns ak..ak+3 of the tile; B row br, columns bc..bc+3 */
    const int ar = tid / 2, ak = (tid % 2) * 4, br = tid / 32, bc = (tid % 32) * 4;
    float acc[8][8] = {};
    for (int64_t t0 = 0; t0 < k; t0 += BK) {
        float4 va, vb;
        {
            const int64_t gi = i0 + ar, gk = t0 + ak;
            if (VEC && gi < m && gk + 3 < k) {
                va = *reinterpret_cast<const float4 *>(a + gi * lda + gk);
            } else {
                const float *row = a + gi * lda;
                va.x = (gi < m && gk + 0 < k) ? row[gk + 0] : 0.0f;
                va.y = (gi < m && gk + 1 < k) ? row[gk + 1] : 0.0f;
                va.z = (gi < m && gk + 2 < k) ? row[gk + 2] : 0.0f;
                va.w = (gi < m && gk + 3 < k) ? row[gk + 3] : 0.0f;
            }
        }
        {
            const int64_t gk = t0 + br, gj = j0 + bc;
            if (VEC && gk < k && gj + 3 < n) {
                vb = *reinterpret_cast<const float4 *>(b + gk * ldb + gj);
            } else {
                const float *row = b + gk * ldb;
                vb.x = (gk < k && gj + 0 < n) ? row[gj + 0] : 0.0f;
                vb.y = (gk < k && gj + 1 < n) ? row[gj + 1] : 0.0f;
                vb.z = (gk < k && gj + 2 < n) ? row[gj + 2] : 0.0f;
                vb.w = (gk < k && gj + 3 < n) ? row[gj + 3] : 0.0f;
            }
        }
        as[ak + 0][ar] = va.x;
        as[ak + 1][ar] = va.y;
        as[ak + 2][ar] = va.z;
        as[ak + 3][ar] = va.w;
        *reinterpret_cast<float4 *>(&bs[br][bc]) = vb;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < BK; q++) {
            float ra[8], rb[8];
            *reinterpret_cast<float4 *>(&ra[0]) = *reinterpret_cast<const float4 *>(&as[q][tr * 4]);
            *reinterpret_cast<float4 *>(&ra[4]) = *reinterpret_cast<const float4 *>(&as[q][64 + tr * 4]);
            *reinterpret_cast<float4 *>(&rb[0]) = *reinterpret_cast<const float4 *>(&bs[q][tc * 4]);
            *reinterpret_cast<float4 *>(&rb[4]) = *reinterpret_cast<const float4 *>(&bs[q][64 + tc * 4]);
#pragma unroll
            for (int x = 0; x < 8; x++)
#pragma unroll
                for (int y = 0; y < 8; y++)
                    acc[x][y] = fmaf(ra[x], rb[y], acc[x][y]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int x = 0; x < 8; x++)
#pragma unroll
        for (int y = 0; y < 8; y++) {
            const int64_t i = i0 + (x < 4 ? tr * 4 + x : 64 + tr * 4 + x - 4);
            const int64_t j = j0 + (y < 4 ? tc * 4 + y : 64 + tc * 4 + y - 4);
            if (i < m && j < n)
                mm_store(c, ldc, i, j, acc[x][y], alpha, beta);
        }
}

extern "C" sl_status sl_cuda_mm_vec(const sl_mm *p)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul vec");
    dim3 g;
    if (st == SL_OK)
        st = mm_grid(p, BM, BN, "matmul vec", &g);
    if (st != SL_OK)
        return st;
    const bool vec = mm_vec_ok(p->a, p->lda, 4) && mm_vec_ok(p->b, p->ldb, 4);
    cudaStream_t s = (cudaStream_t)p->stream;
    if (vec)
        mm_vec_kernel<true><<<g, NT, 0, s>>>(p->m, p->n, p->k, (const float *)p->a, p->lda, (const float *)p->b,
                                             p->ldb, (float *)p->c, p->ldc, (float)p->alpha, (float)p->beta);
    else
        mm_vec_kernel<false><<<g, NT, 0, s>>>(p->m, p->n, p->k, (const float *)p->a, p->lda, (const float *)p->b,
                                              p->ldb, (float *)p->c, p->ldc, (float)p->alpha, (float)p->beta);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
