/*
 * 05_warptile.cu - rung 5: warp tiling and a cp.async pipeline (double
 * buffering, here three stages deep).
 *
 * Change (from rung 4):
 *  - tiles arrive by cp.async (LDGSTS: global -> shared, no registers),
 *    three stages deep: while the block computes tile t, tiles t+1 and t+2
 *    are in flight, so global latency hides behind math and there is one
 *    barrier per K step instead of two. A goes through 4-byte copies that
 *    transpose it on the way (as[k][m], pitch BM + 4), B through 16-byte
 *    copies where rows are 16-byte aligned (4-byte ones otherwise); a
 *    ragged edge is zero-filled by the copy itself (src-size < copy size);
 *  - warp tiling: the 128x128 block tile is split into 8 warp tiles of
 *    64x32 (2 x 4 warps); a lane's 8x8 micro-tile is two 4x4 pairs 32 rows
 *    and 16 columns apart inside its warp tile, so each warp reads a 64-
 *    float strip of A and a 32-float strip of B per k (conflict-free
 *    LDS.128, mostly broadcasts) and the block's shared-memory traffic per
 *    fma falls further;
 *  - BK = 32: a quarter of rung 4's barriers per flop (three stages of
 *    33 KiB: two blocks per SM); BK = 16 measured 5% slower on the H200.
 * Arithmetic intensity: 32 flop/B to L2 / DRAM (as rungs 3-4: 128x128
 * tiles), shared: 4 LDS.128 per 64 FFMA.
 * Expected limiter: the FP32 FMA pipe (compute bound): DRAM needs 32
 * flop/B x 4.8 TB/s = 154 TFLOP/s to starve it, above the 67 TFLOP/s
 * FP32 peak; the target is >= 0.8x cublasSgemm at 4096^3.
 */
#include "mm_common.cuh"

#define BM 128
#define BN 128
#define NT 256
#define PA (BM + 4)

/* BK: K step; STAGES: tiles in flight. The default is <32, 3>; the others
 * are timed by bench/matmul_bench.c --explore (sl_cuda_mm_warptile_cfg). */
template <bool VEC, int BK, int STAGES>
__global__ void __launch_bounds__(NT, 2) mm_warptile_kernel(int64_t m, int64_t n, int64_t k,
                                                            const float *__restrict__ a, int64_t lda,
                                                            const float *__restrict__ b, int64_t ldb, float *c,
                                                            int64_t ldc, float alpha, float beta)
{
#if MM_SM80
    enum { STAGE_FLOATS = BK * PA + BK * BN };
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = (warp / 4) * 64, wn = (warp % 4) * 32; /* the warp tile */
    const int lr = lane / 4, lc = lane % 4;
    const int64_t i0 = (int64_t)blockIdx.y * BM, j0 = (int64_t)blockIdx.x * BN;
    const int64_t ntiles = (k + BK - 1) / BK;

    /* Each thread copies the same A column (kk) of 8 rows 16 apart, and the
     * same 4 B columns of 2 rows 8 apart, every tile: one base pointer each,
     * advanced by BK columns of A / BK rows of B per tile. */
    const int a_r = tid / BK, a_k = tid % BK, b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
    const int64_t a_rows = m - (i0 + a_r);       /* rows of this thread's A copies inside M: q * 16 < a_rows */
    const int64_t b_cols = n - (j0 + b_c);       /* valid columns of its B chunk (clamped below) */
    const int b_valid = b_cols <= 0 ? 0 : (b_cols >= 4 ? 4 : (int)b_cols);
    const float *a_base = a + (a_rows > 0 ? (i0 + a_r) * lda : 0) + a_k;
    const float *b_base = b + b_r * ldb + j0 + b_c;

    auto load = [&](int64_t t, int s) {
        float *as = smem + s * STAGE_FLOATS, *bs = as + BK * PA;
        const int64_t t0 = t * BK;
        const bool k_ok = t0 + a_k < k;
#pragma unroll
        for (int q = 0; q < (BM * BK) / NT; q++) {
            const bool ok = k_ok && q * (NT / BK) < a_rows;
            mm_cp_async4(&as[a_k * PA + a_r + q * (NT / BK)], ok ? a_base + q * (NT / BK) * lda + t0 : a, ok ? 4 : 0);
        }
#pragma unroll
        for (int q = 0; q < (BK * BN) / (4 * NT); q++) {
            const int r = b_r + q * (NT / (BN / 4));
            const bool k_in = t0 + r < k;
            const float *src = b_base + (t0 + q * (NT / (BN / 4))) * ldb;
            if (VEC) {
                const int valid = k_in ? b_valid : 0;
                mm_cp_async16(&bs[r * BN + b_c], valid ? src : b, valid * 4);
            } else {
#pragma unroll
                for (int x = 0; x < 4; x++) {
                    const bool ok = k_in && x < b_valid;
                    mm_cp_async4(&bs[r * BN + b_c + x], ok ? src + x : b, ok ? 4 : 0);
                }
            }
        }
    };

    float acc[8][8] = {};
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles)
            load(s, s);
        mm_cp_commit();
    }
    for (int64_t t = 0; t < ntiles; t++) {
        mm_cp_wait<STAGES - 2>();
        __syncthreads(); /* tile t landed for everyone; stage (t-1) % STAGES is free */
        if (t + STAGES - 1 < ntiles)
            load(t + STAGES - 1, (int)((t + STAGES - 1) % STAGES));
        mm_cp_commit();
        const float *as = smem + (int)(t % STAGES) * STAGE_FLOATS, *bs = as + BK * PA;
#pragma unroll
        for (int q = 0; q < BK; q++) {
            float ra[8], rb[8];
            *reinterpret_cast<float4 *>(&ra[0]) = *reinterpret_cast<const float4 *>(&as[q * PA + wm + lr * 4]);
            *reinterpret_cast<float4 *>(&ra[4]) = *reinterpret_cast<const float4 *>(&as[q * PA + wm + 32 + lr * 4]);
            *reinterpret_cast<float4 *>(&rb[0]) = *reinterpret_cast<const float4 *>(&bs[q * BN + wn + lc * 4]);
            *reinterpret_cast<float4 *>(&rb[4]) = *reinterpret_cast<const float4 *>(&bs[q * BN + wn + 16 + lc * 4]);
#pragma unroll
            for (int x = 0; x < 8; x++)
#pragma unroll
                for (int y = 0; y < 8; y++)
                    acc[x][y] = fmaf(ra[x], rb[y], acc[x][y]);
        }
    }
    mm_cp_wait<0>();
#pragma unroll
    for (int x = 0; x < 8; x++)
#pragma unroll
        for (int y = 0; y < 8; y++) {
            const int64_t i = i0 + wm + (x < 4 ? lr * 4 + x : 32 + lr * 4 + x - 4);
            const int64_t j = j0 + wn + (y < 4 ? lc * 4 + y : 16 + lc * 4 + y - 4);
            if (i < m && j < n)
                mm_store(c, ldc, i, j, acc[x][y], alpha, beta);
        }
#endif /* MM_SM80 */
}

template <bool VEC, int BK, int STAGES> static sl_status launch(const sl_mm *p, dim3 g)
{
    const size_t bytes = (size_t)STAGES * (BK * PA + BK * BN) * sizeof(float);
    SL_CUDA_TRY(cudaFuncSetAttribute(mm_warptile_kernel<VEC, BK, STAGES>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)bytes));
    mm_warptile_kernel<VEC, BK, STAGES><<<g, NT, bytes, (cudaStream_t)p->stream>>>(
        p->m, p->n, p->k, (const float *)p->a, p->lda, (const float *)p->b, p->ldb, (float *)p->c, p->ldc,
        (float)p->alpha, (float)p->beta);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

template <int BK, int STAGES> static sl_status launch_cfg(const sl_mm *p, dim3 g)
{
    return mm_cp16_ok(p->b, p->ldb, p->n, 4) ? launch<true, BK, STAGES>(p, g) : launch<false, BK, STAGES>(p, g);
}

extern "C" sl_status sl_cuda_mm_warptile_cfg(const sl_mm *p, int cfg)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul warptile");
    dim3 g;
    if (st == SL_OK)
        st = mm_need_sm80("matmul warptile");
    if (st == SL_OK)
        st = mm_grid(p, BM, BN, "matmul warptile", &g);
    if (st != SL_OK)
        return st;
    switch (cfg) {
    case 0: return launch_cfg<32, 3>(p, g); /* the default: fastest of the four on the H200 */
    case 1: return launch_cfg<16, 3>(p, g);
    case 2: return launch_cfg<16, 4>(p, g);
    case 3: return launch_cfg<32, 4>(p, g);
    default: return sl_fail(SL_ERR_INVALID_ARG, "matmul warptile: no configuration %d", cfg);
    }
}

extern "C" sl_status sl_cuda_mm_warptile(const sl_mm *p)
{
    return sl_cuda_mm_warptile_cfg(p, 0);
}
