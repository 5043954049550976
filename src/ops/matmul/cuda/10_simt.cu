/*
 * 10_simt.cu - rung 10: the f32 SIMT product (fp32 FFMA, no TF32) with its
 * tiling chosen by shape, and K split over a thread-block cluster where
 * the grid is under a wave (issue 26, item 1, the f32 half).
 *
 * Change (from rung 5, 05_warptile.cu, whose kernel this generalises; rung
 * 5 itself is unchanged, the baseline the bench times beside it):
 *  - the block tile is a template parameter, BM x BN of 128x128 (8 warps),
 *    128x64 (4) or 64x64 (2); the warp tile stays 64x32 and a lane's
 *    micro-tile 8x8 (two 4x4 pairs 32 rows and 16 columns apart), so the
 *    inner loop is rung 5's: per k, 2 LDS.128 of A (transposed in shared
 *    memory) + 2 LDS.128 of B, 64 FFMA, 4 shared wavefronts a warp;
 *  - K split over SPLIT = 2 or 4 CTAs of a cluster (sm_90): CTA kr of the
 *    cluster walks K tiles [kr T / SPLIT, (kr + 1) T / SPLIT) of the T;
 *    after the main loop every CTA's stage memory is free, so (cluster
 *    barrier 1) each CTA writes its 8x8 partials of the rows rank r owns
 *    (BM / SPLIT rows each) into rank r's shared memory with
 *    st.shared::cluster (slot = the writer's rank), cluster barrier 2,
 *    and each rank sums its rows' SPLIT partials in rank order 0, 1, ...
 *    and stores: deterministic (the same bits every launch), no workspace,
 *    no atomics, no second kernel. A rank with no K tile (K < SPLIT x 32)
 *    contributes zeros;
 *  - the A copies are mapped so that a warp's 32 LDGSTS.32 write 32
 *    different banks: lane l copies k = 8 g + l % 8, row 4 h + l / 8 (g, h
 *    from the warp and the copy index), so the transposed store as[k][m]
 *    (pitch BM + 4 = 4 mod 32) lands in bank 4 (l % 8) + l / 8; rung 5's
 *    mapping (32 consecutive k of one row) was a 4-way conflict, 4
 *    wavefronts per copy instruction, about a third of the block's shared
 *    wavefronts per tile. A's global reads become 4 rows x 32 bytes per
 *    warp instead of 1 x 128: the same 4 sectors;
 *  - the stage index is an int counter (rung 5: an int64 modulo per tile).
 * Bytes in flight: 2 of 3 stages of BK = 32, i.e. 2 x 32 x (BM + BN) x 4 B
 * a CTA: 64 KiB for 128x128 (x 2 CTAs an SM = 128 KiB), 48 KiB for 128x64
 * (x 3), 32 KiB for 64x64 (x 4); the split adds CTAs, not bytes per CTA.
 * Shared memory per CTA: 3 x 32 x (BM + 4 + BN) x 4 B = 99 / 74 / 50 KiB;
 * the exchange reuses it (BM x (BN + 4) floats: 66 KiB at 128x128).
 * Arithmetic intensity to L2: 2 BM BN / (4 (BM + BN)) = 32 / 21 / 16
 * flop/B (x 7.66 TB/s = 245 / 163 / 123 TFLOP/s: never the limiter under
 * the 67 TFLOP/s FP32 peak).
 * Expected limiter: the FP32 pipe's issue (one FFMA an SMSP a clock, 85%
 * of the main loop's instructions) at 2048^3 and up; at 1024^3 the fill:
 * 128x128 tiles are 64 CTAs (a quarter of the 264 slots of two an SM),
 * split 4 makes 256 (a wave), each with 8 K tiles: predicted >= 0.70 x
 * cublasSgemm (docs/ladder.md, "sl_gemm f32 by shape"). Measured by graph
 * replay in the nineteenth session, split 2 (128 CTAs of 16 K tiles) ran
 * 1.075x cublasSgemm there and split 4 0.705x; sl_gemm now splits 2 ways
 * (sl_cuda_mm_simt_pick).
 * Any M, N, K >= 1, any leading dimensions; B's 16-byte copies where rows
 * are whole 16-byte chunks (mm_cp16_ok), 4-byte ones otherwise.
 */
#include "mm_common.cuh"

#include <atomic>

#define BK 32
#define STAGES 3

template <int BM, int BN> struct simt_geom {
    static constexpr int WC = BN / 32;                 /* warps along N (warp tile 64 x 32) */
    static constexpr int W = (BM / 64) * WC;           /* warps */
    static constexpr int NT = 32 * W;                  /* threads */
    static constexpr int PA = BM + 4;                  /* pitch of the transposed A tile, 4 mod 32 */
    static constexpr int STAGE = BK * PA + BK * BN;    /* floats a stage */
    static constexpr int KG = BK / 8;                  /* groups of 8 k in a tile */
    static constexpr int AQ = BM * BK / NT;            /* A copies (4 bytes) a thread per tile */
    static constexpr int BQ = BK * BN / (4 * NT);      /* B copies (16 bytes) a thread per tile */
    static constexpr int BRP = 4 * NT / BN;            /* B rows a pass of the block */
    static constexpr int PR = BN + 4;                  /* pitch of the split-K exchange rows */
    static constexpr size_t SMEM_STAGES = (size_t)STAGES * STAGE * sizeof(float);
    static constexpr size_t SMEM_RED = (size_t)BM * PR * sizeof(float);
    static constexpr size_t SMEM = SMEM_STAGES > SMEM_RED ? SMEM_STAGES : SMEM_RED;
    static_assert(BM % 64 == 0 && BN % 32 == 0, "whole warp tiles");
    static_assert(W % KG == 0 || KG % W == 0, "the A copy mapping needs W | KG or KG | W");
    static_assert(AQ * NT == BM * BK && BQ * 4 * NT == BK * BN, "whole copies");
};

/* 512 / NT blocks an SM: every configuration is held to 128 registers (rung 5's budget, no spills). */
template <int BM, int BN, int SPLIT, bool VEC>
__global__ void __launch_bounds__(simt_geom<BM, BN>::NT, 512 / simt_geom<BM, BN>::NT)
    mm_simt_kernel(int64_t m, int64_t n, int64_t k, const float *__restrict__ a, int64_t lda,
                   const float *__restrict__ b, int64_t ldb, float *c, int64_t ldc, float alpha, float beta)
{
#if MM_SM80
    using G = simt_geom<BM, BN>;
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = (warp / G::WC) * 64, wn = (warp % G::WC) * 32; /* the warp tile */
    const int lr = lane / 4, lc = lane % 4;
    const int kr = SPLIT > 1 ? (int)(blockIdx.x % SPLIT) : 0; /* = the CTA's rank in its cluster */
    const int64_t i0 = (int64_t)blockIdx.y * BM, j0 = (int64_t)(blockIdx.x / SPLIT) * BN;
    const int64_t ntiles = (k + BK - 1) / BK;
    const int64_t t_begin = ntiles * kr / SPLIT, t_end = ntiles * (kr + 1) / SPLIT;

    /* A copies: element e = q NT + tid of the BM x BK tile is, with u = e / 32, k = 8 (u % KG) + lane % 8
     * and row = 4 (u / KG) + lane / 8; so k = a_kk + dk(q), row = a_rr + dr(q) with the per-copy
     * offsets below (compile-time after unrolling): conflict-free transposed stores. */
    const int a_kk = (warp % G::KG) * 8 + lane % 8, a_rr = (warp / G::KG) * 4 + lane / 8;
    const int64_t a_left = m - (i0 + a_rr);
    const int a_rows = a_left > BM ? BM : (int)a_left; /* copies with dr < a_rows are inside M */
    const float *a_base = a + (a_rows > 0 ? (i0 + a_rr) * lda : 0) + a_kk;
    /* B copies: 4 columns b_c.. of rows b_r + q BRP */
    const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
    const int64_t b_cols = n - (j0 + b_c);
    const int b_valid = b_cols <= 0 ? 0 : (b_cols >= 4 ? 4 : (int)b_cols);
    const float *b_base = b + b_r * ldb + j0 + b_c;

    /* the next tile to load: its A and B corners and the K left from its start (running, so that the
     * loop holds no 64-bit tile arithmetic) */
    const float *a_next = a_base + t_begin * BK, *b_next = b_base + t_begin * BK * ldb;
    int64_t k_next = k - t_begin * BK;
    auto load = [&](int s) {
        float *as = smem + s * G::STAGE, *bs = as + BK * G::PA;
        const int64_t ka_left = k_next - a_kk, kb_left = k_next - b_r;
        const int ka = ka_left > BK ? BK : (int)ka_left, kb = kb_left > BK ? BK : (int)kb_left;
#pragma unroll
        for (int q = 0; q < G::AQ; q++) {
            const int dr = ((q * G::W) / G::KG) * 4, dk = ((q * G::W) % G::KG) * 8;
            const bool ok = dk < ka && dr < a_rows;
            mm_cp_async4(&as[(a_kk + dk) * G::PA + a_rr + dr], ok ? a_next + dr * lda + dk : a, ok ? 4 : 0);
        }
#pragma unroll
        for (int q = 0; q < G::BQ; q++) {
            const int r = q * G::BRP;
            const bool k_in = r < kb;
            const float *src = b_next + r * ldb;
            if (VEC) {
                const int valid = k_in ? b_valid : 0;
                mm_cp_async16(&bs[(b_r + r) * BN + b_c], valid ? src : b, valid * 4);
            } else {
#pragma unroll
                for (int x = 0; x < 4; x++) {
                    const bool ok = k_in && x < b_valid;
                    mm_cp_async4(&bs[(b_r + r) * BN + b_c + x], ok ? src + x : b, ok ? 4 : 0);
                }
            }
        }
        a_next += BK;
        b_next += BK * ldb;
        k_next -= BK;
    };

    float acc[8][8] = {};
    const int64_t nt = t_end - t_begin; /* this CTA's K tiles */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nt)
            load(s);
        mm_cp_commit();
    }
    int s_use = 0, s_fill = STAGES - 1;
    for (int64_t t = 0; t < nt; t++) {
        mm_cp_wait<STAGES - 2>();
        __syncthreads(); /* tile t landed for everyone; stage s_fill (used by tile t - 1) is free */
        if (t + STAGES - 1 < nt)
            load(s_fill);
        mm_cp_commit();
        const float *as = smem + s_use * G::STAGE, *bs = as + BK * G::PA;
#pragma unroll
        for (int q = 0; q < BK; q++) {
            float ra[8], rb[8];
            *reinterpret_cast<float4 *>(&ra[0]) = *reinterpret_cast<const float4 *>(&as[q * G::PA + wm + lr * 4]);
            *reinterpret_cast<float4 *>(&ra[4]) =
                *reinterpret_cast<const float4 *>(&as[q * G::PA + wm + 32 + lr * 4]);
            *reinterpret_cast<float4 *>(&rb[0]) = *reinterpret_cast<const float4 *>(&bs[q * BN + wn + lc * 4]);
            *reinterpret_cast<float4 *>(&rb[4]) = *reinterpret_cast<const float4 *>(&bs[q * BN + wn + 16 + lc * 4]);
#pragma unroll
            for (int x = 0; x < 8; x++)
#pragma unroll
                for (int y = 0; y < 8; y++)
                    acc[x][y] = fmaf(ra[x], rb[y], acc[x][y]);
        }
        s_use = s_use + 1 == STAGES ? 0 : s_use + 1;
        s_fill = s_fill + 1 == STAGES ? 0 : s_fill + 1;
    }
    mm_cp_wait<0>();
    if constexpr (SPLIT == 1) {
#pragma unroll
        for (int x = 0; x < 8; x++)
#pragma unroll
            for (int y = 0; y < 8; y++) {
                const int64_t i = i0 + wm + (x < 4 ? lr * 4 + x : 32 + lr * 4 + x - 4);
                const int64_t j = j0 + wn + (y < 4 ? lc * 4 + y : 16 + lc * 4 + y - 4);
                if (i < m && j < n)
                    mm_store(c, ldc, i, j, acc[x][y], alpha, beta);
            }
    } else {
#if MM_SM90
        /* the split-K exchange: rank r owns tile rows [r RB, (r + 1) RB); slot w of its buffer holds rank w's
         * partials of them, rows PR floats apart (PR = 4 mod 32: a quarter-warp's float4 stores, two rows
         * and four column groups, fill 128 distinct bytes) */
        constexpr int RB = BM / SPLIT;
        const unsigned red = (unsigned)__cvta_generic_to_shared(smem);
        mm_cluster_sync(); /* 1: every CTA of the cluster is past its main loop; its stages are free */
#pragma unroll
        for (int x = 0; x < 8; x++) {
            const int i = wm + (x < 4 ? lr * 4 + x : 32 + lr * 4 + x - 4);
            const int owner = i / RB, li = i % RB;
            const unsigned dst =
                mm_map_rank(red + (unsigned)(((kr * RB + li) * G::PR + wn + lc * 4) * sizeof(float)), (unsigned)owner);
            mm_st_cluster_v4(dst, acc[x][0], acc[x][1], acc[x][2], acc[x][3]);
            mm_st_cluster_v4(dst + 16 * sizeof(float), acc[x][4], acc[x][5], acc[x][6], acc[x][7]);
        }
        mm_cluster_sync(); /* 2: every partial is in its owner's shared memory */
        for (int e = tid; e < RB * (BN / 4); e += G::NT) {
            const int li = e / (BN / 4), cj = (e % (BN / 4)) * 4;
            float4 s = *reinterpret_cast<const float4 *>(&smem[li * G::PR + cj]);
#pragma unroll
            for (int w = 1; w < SPLIT; w++) { /* rank order: the same sum every launch */
                const float4 v = *reinterpret_cast<const float4 *>(&smem[(w * RB + li) * G::PR + cj]);
                s.x += v.x;
                s.y += v.y;
                s.z += v.z;
                s.w += v.w;
            }
            const int64_t gi = i0 + kr * RB + li, gj = j0 + cj;
            const float sv[4] = {s.x, s.y, s.z, s.w};
            if (gi < m)
#pragma unroll
                for (int y = 0; y < 4; y++)
                    if (gj + y < n)
                        mm_store(c, ldc, gi, gj + y, sv[y], alpha, beta);
        }
#endif /* MM_SM90 */
    }
#endif /* MM_SM80 */
}

/* ---- the configurations ------------------------------------------------------------ */

struct simt_conf {
    int bm, bn, split;
    const char *name;
};
/* cfg 0: sl_cuda_mm_simt_pick's choice */
static const simt_conf CONFS[] = {{0, 0, 0, "auto"},          {128, 128, 1, "128x128"},
                                  {128, 64, 1, "128x64"},      {64, 64, 1, "64x64"},
                                  {128, 128, 2, "128x128 k2"}, {128, 128, 4, "128x128 k4"},
                                  {128, 64, 2, "128x64 k2"}};
#define NCONF ((int)(sizeof CONFS / sizeof CONFS[0]))
static std::atomic<unsigned long long> g_launches[NCONF];

template <int BM, int BN, int SPLIT, bool VEC> static sl_status launch(const sl_mm *p, int cfg, dim3 g)
{
    using G = simt_geom<BM, BN>;
    void (*kern)(int64_t, int64_t, int64_t, const float *, int64_t, const float *, int64_t, float *, int64_t, float,
                 float) = mm_simt_kernel<BM, BN, SPLIT, VEC>;
    SL_CUDA_TRY(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)G::SMEM));
    const float alpha = (float)p->alpha, beta = (float)p->beta;
    if constexpr (SPLIT == 1) {
        kern<<<g, G::NT, G::SMEM, (cudaStream_t)p->stream>>>(p->m, p->n, p->k, (const float *)p->a, p->lda,
                                                             (const float *)p->b, p->ldb, (float *)p->c, p->ldc,
                                                             alpha, beta);
        SL_CUDA_LAUNCHED();
    } else {
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3(g.x * SPLIT, g.y, 1);
        lc.blockDim = dim3(G::NT, 1, 1);
        lc.dynamicSmemBytes = G::SMEM;
        lc.stream = (cudaStream_t)p->stream;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = SPLIT;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        lc.attrs = at;
        lc.numAttrs = 1;
        SL_CUDA_TRY(cudaLaunchKernelEx(&lc, kern, p->m, p->n, p->k, (const float *)p->a, p->lda, (const float *)p->b,
                                       p->ldb, (float *)p->c, p->ldc, alpha, beta));
    }
    g_launches[cfg].fetch_add(1, std::memory_order_relaxed);
    return SL_OK;
}

template <int BM, int BN, int SPLIT> static sl_status launch_vec(const sl_mm *p, int cfg, dim3 g)
{
    return mm_cp16_ok(p->b, p->ldb, p->n, 4) ? launch<BM, BN, SPLIT, true>(p, cfg, g)
                                             : launch<BM, BN, SPLIT, false>(p, cfg, g);
}

static int sm_count(void)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return 132;
    return sms;
}

/* sl_gemm's f32 rule (docs/ladder.md, "sl_gemm f32 by shape" and its nineteenth-session update): on
 * sm_90, K split 2 over a cluster wherever each rank gets 16 K tiles or more (K >= 1024): by CUDA-graph
 * replay on an H200 it was the fastest configuration or level with it at every shape tried with such K,
 * 1024^3 to 4096^3 and 1024 x 1024 x 4096 to 4096 x 4096 x 1024 (1024^3: 1.07x cuBLAS, where split 4 ran
 * 0.70x; bench/results/h200-gemm-f32-2026-11-28.md), except 1536^3 (split 4 1.12x, 128 x 64 split 2
 * 1.07x split 2's speed). Larger M N with long K (4096 x 4096 x 14336) follows the trend, unmeasured.
 * With less K: 128 x 128 tiles from one CTA an SM up; under that, on sm_90, K split 2 (the split CTAs
 * then fit one wave of two an SM) where each has 8 K tiles (256 of K); else narrower tiles: 128 x 64
 * if they give every SM a CTA, 64 x 64 otherwise. */
extern "C" int sl_cuda_mm_simt_pick(int64_t m, int64_t n, int64_t k, int sms, int cc)
{
    if (sms < 1)
        sms = 1;
    const int64_t tm = (m + 127) / 128, t128 = tm * ((n + 127) / 128);
    if (cc >= 90 && k >= 2 * 16 * BK)
        return 4;
    if (t128 >= sms)
        return 1;
    if (cc >= 90 && k >= 2 * 8 * BK)
        return 4;
    return tm * ((n + 63) / 64) >= sms ? 2 : 3;
}

extern "C" sl_status sl_cuda_mm_simt_cfg(const sl_mm *p, int cfg)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul simt");
    if (st == SL_OK && (cfg < 0 || cfg >= NCONF))
        st = sl_fail(SL_ERR_INVALID_ARG, "matmul simt: no configuration %d (0 .. %d)", cfg, NCONF - 1);
    int cc = 0;
    if (st == SL_OK)
        st = mm_need_sm80("matmul simt");
    if (st == SL_OK)
        st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (cfg == 0)
        cfg = sl_cuda_mm_simt_pick(p->m, p->n, p->k, sm_count(), cc);
    if (CONFS[cfg].split > 1 && (st = mm_need_sm90("matmul simt (split-K over a cluster)")) != SL_OK)
        return st;
    dim3 g;
    st = mm_grid(p, CONFS[cfg].bm, CONFS[cfg].bn, "matmul simt", &g);
    if (st == SL_OK && (int64_t)g.x * CONFS[cfg].split > 0x7fffffff)
        st = sl_fail(SL_ERR_INVALID_ARG, "matmul simt: %lld columns need too many CTAs", (long long)p->n);
    if (st != SL_OK)
        return st;
    switch (cfg) {
    case 1: return launch_vec<128, 128, 1>(p, cfg, g);
    case 2: return launch_vec<128, 64, 1>(p, cfg, g);
    case 3: return launch_vec<64, 64, 1>(p, cfg, g);
    case 4: return launch_vec<128, 128, 2>(p, cfg, g);
    case 5: return launch_vec<128, 128, 4>(p, cfg, g);
    default: return launch_vec<128, 64, 2>(p, cfg, g);
    }
}

extern "C" unsigned long long sl_cuda_mm_simt_launches(int cfg)
{
    return cfg >= 0 && cfg < NCONF ? g_launches[cfg].load(std::memory_order_relaxed) : 0;
}

extern "C" sl_status sl_cuda_mm_simt_auto(const sl_mm *p) { return sl_cuda_mm_simt_cfg(p, 0); }
extern "C" sl_status sl_cuda_mm_simt_128x128(const sl_mm *p) { return sl_cuda_mm_simt_cfg(p, 1); }
extern "C" sl_status sl_cuda_mm_simt_128x64(const sl_mm *p) { return sl_cuda_mm_simt_cfg(p, 2); }
extern "C" sl_status sl_cuda_mm_simt_64x64(const sl_mm *p) { return sl_cuda_mm_simt_cfg(p, 3); }
extern "C" sl_status sl_cuda_mm_simt_k2(const sl_mm *p) { return sl_cuda_mm_simt_cfg(p, 4); }
extern "C" sl_status sl_cuda_mm_simt_k4(const sl_mm *p) { return sl_cuda_mm_simt_cfg(p, 5); }
extern "C" sl_status sl_cuda_mm_simt_128x64_k2(const sl_mm *p) { return sl_cuda_mm_simt_cfg(p, 6); }
