/*
 * mm_wmma.cuh - the tensor-core kernel template of rungs 6 and 7: WMMA
 * (warp-wide 16x16 tiles, seed 004 "Tensor Cores") fed by a multi-stage
 * cp.async pipeline through padded shared-memory tiles.
 *
 *   Ts      storage type of A, B and C: __half, __nv_bfloat16 (16x16x16
 *           fragments, fp32 accumulators) or float (TF32 16x16x8 fragments:
 *           f32 inputs rounded to TF32 with __float_to_tf32, fp32
 *           accumulators)
 *   BM, BN  the block's tile of C; BK its K step (64 bytes of a row)
 *   WM, WN  a warp's tile of C: (WM/16) x (WN/16) accumulator fragments
 *   STAGES  tiles in flight (cp.async groups)
 *   VEC     16-byte cp.async (base and rows 16-byte aligned); otherwise
 *           plain loads of single elements through registers
 *   SWZ     grouped block order (8 block rows per group) for L2 reuse
 *
 * Shared tiles are row-major with a 16-byte pad per row (A: BK + pad, B:
 * BN + pad): a row pitch of 80 or 272 bytes puts the 8 rows a fragment
 * load reads at once in 8 different 16-byte bank groups. Every fragment
 * pointer stays 32-byte aligned, as load_matrix_sync requires. Ragged
 * edges are zero-filled (cp.async src-size), so any M, N, K >= 1 works;
 * the epilogue goes through a per-warp 16x16 fp32 scratch tile and stores
 * alpha acc + beta c (C read only when beta != 0) with bounds checks.
 */
#ifndef SL_MM_WMMA_CUH
#define SL_MM_WMMA_CUH

#include <mma.h>

#include "mm_common.cuh"

namespace wmma = nvcuda::wmma;

template <class Ts> struct mm_wm;
#if MM_SM80
template <> struct mm_wm<__half> {
    typedef __half frag_t;
    enum { WK = 16 };
    static const sl_dtype dt = SL_F16;
};
template <> struct mm_wm<__nv_bfloat16> {
    typedef __nv_bfloat16 frag_t;
    enum { WK = 16 };
    static const sl_dtype dt = SL_BF16;
};
template <> struct mm_wm<float> {
    typedef wmma::precision::tf32 frag_t;
    enum { WK = 8 };
    static const sl_dtype dt = SL_F32;
};

template <class F> __device__ __forceinline__ void mm_tf32_round(F &f, float *)
{
#pragma unroll
    for (int i = 0; i < f.num_elements; i++)
        f.x[i] = wmma::__float_to_tf32(f.x[i]);
}
template <class F, class T> __device__ __forceinline__ void mm_tf32_round(F &, T *) {}
#endif /* MM_SM80 */

template <class Ts, int BM, int BN, int WM, int WN, int STAGES, int KB = 64> struct mm_wcfg {
    enum {
        V = 16 / (int)sizeof(Ts),   /* elements per 16-byte chunk */
        BK = KB / (int)sizeof(Ts),  /* KB bytes of a row per K step (64: 32 bf16, 16 f32) */
        LDA = BK + V,               /* padded pitches, elements */
        LDB = BN + V,
        A_ELEMS = BM * LDA,
        B_ELEMS = BK * LDB,
        STAGE_BYTES = (A_ELEMS + B_ELEMS) * (int)sizeof(Ts),
        WARPS = (BM / WM) * (BN / WN),
        NT = WARPS * 32,
        SMEM = STAGES * STAGE_BYTES + WARPS * 256 * 4,
    };
};

template <class Ts, int BM, int BN, int WM, int WN, int STAGES, bool VEC, bool SWZ>
__global__ void __launch_bounds__(mm_wcfg<Ts, BM, BN, WM, WN, STAGES>::NT)
    mm_wmma_kernel(int64_t m, int64_t n, int64_t k, const Ts *__restrict__ a, int64_t lda, const Ts *__restrict__ b,
                   int64_t ldb, Ts *c, int64_t ldc, float alpha, float beta)
{
#if MM_SM80
    typedef mm_wcfg<Ts, BM, BN, WM, WN, STAGES> C;
    typedef typename mm_wm<Ts>::frag_t FT;
    enum { V = C::V, BK = C::BK, LDA = C::LDA, LDB = C::LDB, NT = C::NT, WK = mm_wm<Ts>::WK };
    enum { FM = WM / 16, FN = WN / 16 };
    extern __shared__ __align__(128) unsigned char mm_smem[];
    Ts *smem = reinterpret_cast<Ts *>(mm_smem);
    float *scratch = reinterpret_cast<float *>(mm_smem + STAGES * C::STAGE_BYTES);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    int bx = blockIdx.x, by = blockIdx.y;
    if (SWZ) { /* groups of 8 block rows walk the columns together: their B panels stay in L2 */
        const int gx = gridDim.x, gy = gridDim.y, id = by * gx + bx, per = 8 * gx;
        const int first = (id / per) * 8, rows = gy - first < 8 ? gy - first : 8;
        by = first + (id % per) % rows;
        bx = (id % per) / rows;
    }
    const int64_t i0 = (int64_t)by * BM, j0 = (int64_t)bx * BN;
    const int64_t ntiles = (k + BK - 1) / BK;
    const Ts zero = mm_from_f32<Ts>(0.0f);

    /* The 16-byte path: thread tid copies the same chunk column of A (cv)
     * for rows a_r0 + q * RS_A, and of B (bv) for rows b_r0 + q * RS_B,
     * every tile: base pointers advanced by BK columns of A / BK rows of B
     * per tile, validity worked out once (rows of A, columns of B) or per
     * tile (K), shared-memory offsets 32-bit. */
    enum { CA = BK / V, CB = BN / V, RS_A = NT / CA, RS_B = NT / CB };
    static_assert(NT % CA == 0 && NT % CB == 0 && (BM * CA) % NT == 0 && (BK * CB) % NT == 0,
                  "chunks must divide among the threads");
    const int a_r0 = tid / CA, a_cv = (tid % CA) * V, b_r0 = tid / CB, b_cv = (tid % CB) * V;
    const int64_t a_rows = m - i0 - a_r0; /* copy q is inside M if q * RS_A < a_rows */
    int64_t nb_ = n - j0 - b_cv;
    const int b_n = nb_ <= 0 ? 0 : (nb_ >= V ? V : (int)nb_); /* valid columns of the B chunk */
    const Ts *a_base = a + (a_rows > 0 ? (i0 + a_r0) * lda : 0) + a_cv;
    const Ts *b_base = b + b_r0 * ldb + j0 + b_cv;

    auto load = [&](int64_t t, int s) {
        Ts *as = smem + s * (C::A_ELEMS + C::B_ELEMS), *bs = as + C::A_ELEMS;
        const int64_t t0 = t * BK;
        if (VEC) {
            int64_t ka = k - t0 - a_cv;
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
                mm_cp_async16(&bs[r * LDB + b_cv], valid ? b_base + (t0 + q * RS_B) * ldb : b,
                              valid * (int)sizeof(Ts));
            }
        } else {
#pragma unroll
            for (int e = tid; e < BM * (BK / V); e += NT) {
                const int r = e / (BK / V), cv = (e % (BK / V)) * V;
                const int64_t gi = i0 + r, gk = t0 + cv;
                int64_t valid = gi < m ? k - gk : 0;
                valid = valid < 0 ? 0 : (valid > V ? V : valid);
#pragma unroll
                for (int x = 0; x < V; x++)
                    as[r * LDA + cv + x] = x < valid ? a[gi * lda + gk + x] : zero;
            }
#pragma unroll
            for (int e = tid; e < BK * (BN / V); e += NT) {
                const int r = e / (BN / V), cv = (e % (BN / V)) * V;
                const int64_t gk = t0 + r, gj = j0 + cv;
                int64_t valid = gk < k ? n - gj : 0;
                valid = valid < 0 ? 0 : (valid > V ? V : valid);
#pragma unroll
                for (int x = 0; x < V; x++)
                    bs[r * LDB + cv + x] = x < valid ? b[gk * ldb + gj + x] : zero;
            }
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, WK, float> acc[FM][FN];
#pragma unroll
    for (int x = 0; x < FM; x++)
#pragma unroll
        for (int y = 0; y < FN; y++)
            wmma::fill_fragment(acc[x][y], 0.0f);

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles)
            load(s, s);
        mm_cp_commit();
    }
    for (int64_t t = 0; t < ntiles; t++) {
        mm_cp_wait<STAGES - 2>();
        __syncthreads(); /* tile t is in for everyone; the stage of t - 1 is free */
        if (t + STAGES - 1 < ntiles)
            load(t + STAGES - 1, (int)((t + STAGES - 1) % STAGES));
        mm_cp_commit();
        const Ts *as = smem + (int)(t % STAGES) * (C::A_ELEMS + C::B_ELEMS), *bs = as + C::A_ELEMS;
#pragma unroll
        for (int kk = 0; kk < BK; kk += WK) {
            wmma::fragment<wmma::matrix_a, 16, 16, WK, FT, wmma::row_major> fa[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, WK, FT, wmma::row_major> fb[FN];
#pragma unroll
            for (int x = 0; x < FM; x++) {
                wmma::load_matrix_sync(fa[x], as + (wm + x * 16) * LDA + kk, LDA);
                mm_tf32_round(fa[x], (Ts *)0);
            }
#pragma unroll
            for (int y = 0; y < FN; y++) {
                wmma::load_matrix_sync(fb[y], bs + kk * LDB + wn + y * 16, LDB);
                mm_tf32_round(fb[y], (Ts *)0);
            }
#pragma unroll
            for (int x = 0; x < FM; x++)
#pragma unroll
                for (int y = 0; y < FN; y++)
                    wmma::mma_sync(acc[x][y], fa[x], fb[y], acc[x][y]);
        }
    }
    mm_cp_wait<0>();

    float *my = scratch + warp * 256;
#pragma unroll
    for (int x = 0; x < FM; x++)
#pragma unroll
        for (int y = 0; y < FN; y++) {
            wmma::store_matrix_sync(my, acc[x][y], 16, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int q = 0; q < 8; q++) {
                const int e = lane + 32 * q, r = e / 16, cc = e % 16;
                const int64_t i = i0 + wm + x * 16 + r, j = j0 + wn + y * 16 + cc;
                if (i < m && j < n)
                    mm_store(c, ldc, i, j, my[e], alpha, beta);
            }
            __syncwarp();
        }
#endif /* MM_SM80 */
}

/* Launch one configuration for p (dtype checked by the caller). */
template <class Ts, int BM, int BN, int WM, int WN, int STAGES, bool SWZ>
static sl_status mm_wmma_launch(const sl_mm *p, const char *who)
{
    typedef mm_wcfg<Ts, BM, BN, WM, WN, STAGES> C;
    dim3 g;
    sl_status st = mm_need_sm80(who);
    if (st == SL_OK)
        st = mm_grid(p, BM, BN, who, &g);
    if (st != SL_OK)
        return st;
    const bool vec = mm_cp16_ok(p->a, p->lda, p->k, sizeof(Ts)) && mm_cp16_ok(p->b, p->ldb, p->n, sizeof(Ts));
    cudaStream_t s = (cudaStream_t)p->stream;
    const float al = (float)p->alpha, be = (float)p->beta;
    if (vec) {
        SL_CUDA_TRY(cudaFuncSetAttribute(mm_wmma_kernel<Ts, BM, BN, WM, WN, STAGES, true, SWZ>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
        mm_wmma_kernel<Ts, BM, BN, WM, WN, STAGES, true, SWZ><<<g, C::NT, C::SMEM, s>>>(
            p->m, p->n, p->k, (const Ts *)p->a, p->lda, (const Ts *)p->b, p->ldb, (Ts *)p->c, p->ldc, al, be);
    } else {
        SL_CUDA_TRY(cudaFuncSetAttribute(mm_wmma_kernel<Ts, BM, BN, WM, WN, STAGES, false, SWZ>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
        mm_wmma_kernel<Ts, BM, BN, WM, WN, STAGES, false, SWZ><<<g, C::NT, C::SMEM, s>>>(
            p->m, p->n, p->k, (const Ts *)p->a, p->lda, (const Ts *)p->b, p->ldb, (Ts *)p->c, p->ldc, al, be);
    }
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#endif /* SL_MM_WMMA_CUH */
