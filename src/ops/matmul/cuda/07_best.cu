/*
 * 07_best.cu - rung 7: our best verified tensor-core kernel on sm_90:
 * ldmatrix + mma.sync (PTX) with a 4-stage cp.async pipeline.
 *
 * What it is, honestly: not Hopper's wgmma + TMA (asynchronous warpgroup
 * MMA reading shared-memory descriptors, fed by the Tensor Memory
 * Accelerator), which is what cuBLAS runs on the H200; we did not have the
 * time to make and verify one. It is the Ampere-style path that sm_90 also
 * runs (HMMA.16816), written out by hand because WMMA's fragment loads
 * compile to scalar LDS (rung 6's SASS: 200 LDS and ~2,000 integer
 * instructions for 32 HMMA per K step):
 *  - fragments come from shared memory through ldmatrix.x4 (A) and
 *    ldmatrix.x4.trans (B, stored row-major [k][n]): one instruction per
 *    16x16 operand instead of 4-8 LDS and the packing;
 *  - warp tile 64x64 = 4 x 8 mma.m16n8k16 accumulators (128 fp32
 *    registers): per 16 of K a warp issues 8 ldmatrix.x4 and 32 mma;
 *  - block tile 128 x 128 (4 warps, two blocks per SM), BK = 32, 4
 *    cp.async stages with base pointers precomputed per thread
 *    (mm_wmma.cuh's 16-byte path), padded rows (80 / 272 bytes: the 8 rows
 *    an ldmatrix phase reads hit 8 different 16-byte bank groups), grouped
 *    block order for L2 reuse; the configuration that measured fastest of
 *    those in best_cfg() below (128 x 256 with 8 warps was 21% slower);
 *  - epilogue straight from the accumulators (alpha acc + beta c, rounded
 *    once, bounds-checked).
 * A matrix whose rows are not 16-byte aligned runs rung 6's kernel in its
 * scalar-load configuration instead (the public entry never loses
 * generality).
 * Arithmetic intensity: to L2 2 BM BN / ((BM + BN) x 2 bytes) = 64 flop/B
 * (128x128 bf16); shared memory: per warp per 16-deep step 4 A + 4 B
 * ldmatrix.x4 (8 x 512 B) for 32 x 4096 flops: 32 flop/B.
 * Expected limiter: the mma.sync issue rate: on Hopper the legacy HMMA
 * path does not reach the wgmma peak (989 TFLOP/s dense bf16); L2 at 85
 * flop/B x 7.66 TB/s = 490 TFLOP/s is the next roof.
 */
#include "mm_wmma.cuh"

__device__ __forceinline__ void mm_ldsm_x4(uint32_t r[4], const void *p)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}
__device__ __forceinline__ void mm_ldsm_x4_t(uint32_t r[4], const void *p)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}
template <class Ts> __device__ __forceinline__ void mm_mma16816(float c[4], const uint32_t a[4], const uint32_t b[2]);
template <> __device__ __forceinline__ void mm_mma16816<__nv_bfloat16>(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> __device__ __forceinline__ void mm_mma16816<__half>(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <class Ts, int BM, int BN, int WM, int WN, int STAGES, int KB, bool SWZ>
__global__ void __launch_bounds__(mm_wcfg<Ts, BM, BN, WM, WN, STAGES, KB>::NT)
    mm_mma_kernel(int64_t m, int64_t n, int64_t k, const Ts *__restrict__ a, int64_t lda, const Ts *__restrict__ b,
                  int64_t ldb, Ts *c, int64_t ldc, float alpha, float beta)
{
#if MM_SM80
    typedef mm_wcfg<Ts, BM, BN, WM, WN, STAGES, KB> C;
    enum { V = C::V, BK = C::BK, LDA = C::LDA, LDB = C::LDB, NT = C::NT, FM = WM / 16, FN = WN / 8 };
    enum { CA = BK / V, CB = BN / V, RS_A = NT / CA, RS_B = NT / CB };
    static_assert(NT % CA == 0 && NT % CB == 0 && (BM * CA) % NT == 0 && (BK * CB) % NT == 0 && FN % 2 == 0,
                  "tile shape");
    extern __shared__ __align__(128) unsigned char mm_smem[];
    Ts *smem = reinterpret_cast<Ts *>(mm_smem);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    int bx = blockIdx.x, by = blockIdx.y;
    if (SWZ) {
        const int gx = gridDim.x, gy = gridDim.y, id = by * gx + bx, per = 8 * gx;
        const int first = (id / per) * 8, rows = gy - first < 8 ? gy - first : 8;
        by = first + (id % per) % rows;
        bx = (id % per) / rows;
    }
    const int64_t i0 = (int64_t)by * BM, j0 = (int64_t)bx * BN;
    const int64_t ntiles = (k + BK - 1) / BK;

    const int a_r0 = tid / CA, a_cv = (tid % CA) * V, b_r0 = tid / CB, b_cv = (tid % CB) * V;
    const int64_t a_rows = m - i0 - a_r0;
    const int64_t nb_ = n - j0 - b_cv;
    const int b_n = nb_ <= 0 ? 0 : (nb_ >= V ? V : (int)nb_);
    const Ts *a_base = a + (a_rows > 0 ? (i0 + a_r0) * lda : 0) + a_cv;
    const Ts *b_base = b + b_r0 * ldb + j0 + b_cv;

    auto load = [&](int64_t t, int s) {
        Ts *as = smem + s * (C::A_ELEMS + C::B_ELEMS), *bs = as + C::A_ELEMS;
        const int64_t t0 = t * BK, ka = k - t0 - a_cv;
        const int a_k = ka <= 0 ? 0 : (ka >= V ? V : (int)ka);
#pragma unroll
        for (int q = 0; q < (BM * CA) / NT; q++) {
            const int valid = q * RS_A < a_rows ? a_k : 0;
            mm_cp_async16(&as[(a_r0 + q * RS_A) * LDA + a_cv], valid ? a_base + q * RS_A * lda + t0 : a,
                          valid * (int)sizeof(Ts));
        }
#pragma unroll
        for (int q = 0; q < (BK * CB) / NT; q++) {
            const int r = b_r0 + q * RS_B;
            const int valid = t0 + r < k ? b_n : 0;
            mm_cp_async16(&bs[r * LDB + b_cv], valid ? b_base + (t0 + q * RS_B) * ldb : b, valid * (int)sizeof(Ts));
        }
    };

    float acc[FM][FN][4];
#pragma unroll
    for (int x = 0; x < FM; x++)
#pragma unroll
        for (int y = 0; y < FN; y++)
#pragma unroll
            for (int z = 0; z < 4; z++)
                acc[x][y][z] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles)
            load(s, s);
        mm_cp_commit();
    }
    /* this lane's ldmatrix row and 8-element column offset within a 16x16 operand */
    const int lr = lane % 16, lc = (lane / 16) * 8;
    for (int64_t t = 0; t < ntiles; t++) {
        mm_cp_wait<STAGES - 2>();
        __syncthreads();
        if (t + STAGES - 1 < ntiles)
            load(t + STAGES - 1, (int)((t + STAGES - 1) % STAGES));
        mm_cp_commit();
        const Ts *as = smem + (int)(t % STAGES) * (C::A_ELEMS + C::B_ELEMS), *bs = as + C::A_ELEMS;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            uint32_t af[FM][4], bf[FN][2];
#pragma unroll
            for (int x = 0; x < FM; x++)
                mm_ldsm_x4(af[x], &as[(wm + x * 16 + lr) * LDA + kk + lc]);
#pragma unroll
            for (int y = 0; y < FN / 2; y++) {
                uint32_t r[4];
                mm_ldsm_x4_t(r, &bs[(kk + lr) * LDB + wn + y * 16 + lc]);
                bf[2 * y][0] = r[0];
                bf[2 * y][1] = r[1];
                bf[2 * y + 1][0] = r[2];
                bf[2 * y + 1][1] = r[3];
            }
#pragma unroll
            for (int x = 0; x < FM; x++)
#pragma unroll
                for (int y = 0; y < FN; y++)
                    mm_mma16816<Ts>(acc[x][y], af[x], bf[y]);
        }
    }
    mm_cp_wait<0>();
    /* accumulator z of (x, y): row lane/4 (+8 for z >= 2), column 2 (lane % 4) + (z & 1) */
#pragma unroll
    for (int x = 0; x < FM; x++)
#pragma unroll
        for (int y = 0; y < FN; y++)
#pragma unroll
            for (int z = 0; z < 4; z++) {
                const int64_t i = i0 + wm + x * 16 + lane / 4 + (z >= 2 ? 8 : 0);
                const int64_t j = j0 + wn + y * 8 + (lane % 4) * 2 + (z & 1);
                if (i < m && j < n)
                    mm_store(c, ldc, i, j, acc[x][y][z], alpha, beta);
            }
#endif /* MM_SM80 */
}

template <class Ts, int BM, int BN, int WM, int WN, int STAGES, int KB>
static sl_status mma_launch(const sl_mm *p)
{
    typedef mm_wcfg<Ts, BM, BN, WM, WN, STAGES, KB> C;
    if (!(mm_cp16_ok(p->a, p->lda, p->k, sizeof(Ts)) && mm_cp16_ok(p->b, p->ldb, p->n, sizeof(Ts))))
        return mm_wmma_launch<Ts, 128, 128, 64, 32, 3, false>(p, "matmul best (unaligned: rung 6)");
    dim3 g;
    sl_status st = mm_need_sm80("matmul best");
    if (st == SL_OK)
        st = mm_grid(p, BM, BN, "matmul best", &g);
    if (st != SL_OK)
        return st;
    const size_t smem = (size_t)STAGES * C::STAGE_BYTES;
    SL_CUDA_TRY(cudaFuncSetAttribute(mm_mma_kernel<Ts, BM, BN, WM, WN, STAGES, KB, true>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    mm_mma_kernel<Ts, BM, BN, WM, WN, STAGES, KB, true><<<g, C::NT, smem, (cudaStream_t)p->stream>>>(
        p->m, p->n, p->k, (const Ts *)p->a, p->lda, (const Ts *)p->b, p->ldb, (Ts *)p->c, p->ldc, (float)p->alpha,
        (float)p->beta);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* The configurations tried (bench/matmul_bench.c --explore); 0 is the
 * default: the fastest of the H200 run that picked it (docs/ladder.md). */
template <class Ts> static sl_status best_cfg(const sl_mm *p, int cfg)
{
    switch (cfg) {
    case 0: return mma_launch<Ts, 128, 128, 64, 64, 4, 64>(p);  /* 4 warps, 2 blocks / SM, BK 32 */
    case 1: return mma_launch<Ts, 128, 128, 64, 64, 3, 128>(p); /* BK 64: half the barriers per flop */
    case 2: return mma_launch<Ts, 128, 256, 64, 64, 4, 64>(p);  /* 8 warps, 1 block / SM */
    case 3: return mma_launch<Ts, 128, 128, 64, 32, 3, 128>(p); /* 8 warps of 64x32, BK 64 */
    default: return sl_fail(SL_ERR_INVALID_ARG, "matmul best: no configuration %d", cfg);
    }
}

extern "C" sl_status sl_cuda_mm_best_cfg(const sl_mm *p, int cfg)
{
    switch (p->dtype) {
    case SL_BF16: return best_cfg<__nv_bfloat16>(p, cfg);
    case SL_F16: return best_cfg<__half>(p, cfg);
    default: return mm_need_dtype(p, (1u << SL_BF16) | (1u << SL_F16), "matmul best");
    }
}

extern "C" sl_status sl_cuda_mm_best(const sl_mm *p)
{
    return sl_cuda_mm_best_cfg(p, 0);
}
