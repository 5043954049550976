/*
 * xk_bulk.cuh - the cross-entropy's bulk kernel (the row staged in shared
 * memory by bulk copies; 04_bulk.cu says what it does and why) as one
 * template for its configurations: the block (512 threads for bulk), the
 * chunk the plan prefers (bulk: the fewest chunks of <= 72 KiB) and the
 * flag X1, the one-sided cluster exchange of the warps' (max, sum, sum x,
 * target logit) (cluster_x1.cuh; 05_bulk_ex.cu). bulk is
 * xent_bulk<DT, 512, 3, 0> with the preferred chunk at the 72 KiB limit:
 * the kernel and launch of before.
 */
#ifndef SL_XK_BULK_CUH
#define SL_XK_BULK_CUH

#include "bulk.cuh" /* bulk_code_ok, bulk_copy.cuh */
#include "cluster_x1.cuh"
#include "xent.cuh"

#include <cooperative_groups.h>

enum {
    XK_MAXV = 4608, /* 16-byte vectors a chunk at most: 72 KiB, three blocks an SM (228 KiB) */
    XK_PIECE = 1024, /* vectors a bulk copy: 16 KiB */
    XU = 4           /* vectors a step of the sum and gradient sweeps */
};

/* The running max m of a thread's 16-bit elements as a packed pair
 * (max.bf16x2 / max.f16x2: one instruction a word, no unpacking; a NaN
 * element is skipped as fmaxf skips it), widened at the end. */
template <int DT> static __device__ __forceinline__ uint32_t xk_pmax(uint32_t a, uint32_t b)
{
    uint32_t r;
    if (DT == SL_BF16)
        asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else
        asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

/* Element k of a 16-byte vector widened to f32. bf16 pairs: the low one
 * by a shift, the high one by a mask (one instruction each, where the
 * generic unpack shifts the high one down and up again); f16 and f32 as
 * sbwd_el. */
template <int DT> static __device__ __forceinline__ float xk_el(const uint4 &u, int k)
{
    if (DT != SL_BF16)
        return sbwd_el<DT>(u, k);
    const uint32_t w = sbwd_word(u, k >> 1);
    return __uint_as_float(k & 1 ? w & 0xffff0000u : w << 16);
}

/* 2^t (ex2.approx.ftz: relative error 2^-22, below 2^-126 flushed to 0).
 * The callers pass t = x log2 e + nl, one fma, nl = -ref log2 e rounded
 * once a block: exp(x - ref) without the subtraction (as 03_bwd.cu). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 /* the sm_90 kernel body's only */
static __device__ __forceinline__ float xk_ex2(float t)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
    return r;
}
#endif

/* MINB blocks an SM on sm_90 (bulk: three of 512 threads); the other
 * architectures this file is compiled for (the kernel body is sm_90 only)
 * get no bound: sm_75 runs 1024 threads an SM and ptxas refuses 1536. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define XK_MINB(MINB) (MINB)
#else
#define XK_MINB(MINB) 1
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* X1: the row's (max, sum, sum x, target logit) from the n <= NW x 8 warp
 * states of the exchange's slots xr (four floats each): the max over all
 * (lane l reads slots l, l + 32, ...; a butterfly), then the sums, each
 * state's sum rescaled to the max as smx_ms_merge does (expf, factor 0
 * for a state of -inf), added in slot order a lane and by the butterfly:
 * the same bits in every warp of every CTA of the row. */
template <int NW> static __device__ __forceinline__ float4 xk_fold_slots(const float *xr, unsigned n)
{
    const unsigned lane = threadIdx.x & 31u;
    float m = -CUDART_INF_F;
#pragma unroll
    for (unsigned i = 0; i < (NW * 8 + 31) / 32; i++)
        if (lane + 32 * i < n)
            m = fmaxf(m, xr[4 * (lane + 32 * i)]);
    m = smx_warp<smx_max_op>(m);
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    float s = 0.0f, a = 0.0f, b = 0.0f;
#pragma unroll
    for (unsigned i = 0; i < (NW * 8 + 31) / 32; i++)
        if (lane + 32 * i < n) {
            const float4 e = *(const float4 *)(xr + 4 * (lane + 32 * i));
            s += e.y * expf(e.x - ref);
            a += e.z;
            b += e.w;
        }
    return make_float4(m, smx_warp<smx_sum_op>(s), smx_warp<smx_sum_op>(a), smx_warp<smx_sum_op>(b));
}
#endif

/* BLOCK threads, at most MINB blocks an SM, X1 the one-sided exchange
 * (cluster_x1.cuh): without it the block's max, sums and the cluster's
 * merge as 04_bulk.cu says; with it every reduction stops at the warp
 * (the warp's max is its ref) and the warps' states are exchanged. */
template <int DT, int BLOCK, int MINB, int X1>
static __global__ void __launch_bounds__(BLOCK, XK_MINB(MINB)) xent_bulk(xent_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    enum { XK_BLOCK = BLOCK, NW = BLOCK / 32 };
    extern __shared__ __align__(128) uint4 xs[];
    __shared__ __align__(16) float red[X1 ? 1 : 32];
    __shared__ float cl[4];  /* !X1: this block's (max, sum, sum x, target logit): read by the cluster */
    __shared__ float fin[4]; /* !X1: the row's, merged by thread 0 */
    __shared__ __align__(16) float xsl[X1 ? NW * 8 * 4 : 4]; /* X1: the cluster's warp states */
    __shared__ __align__(8) uint64_t bar, xb;
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const char *xr = (const char *)g.x + row * g.ld * sizeof(R);
    char *dr = (char *)g.dx + row * g.ld * sizeof(R);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        if (X1)
            x1_arm(&xb, NW, C, 16);
        mbar_arrive_expect(&bar, cnt * 16u);
        for (uint32_t p = 0; p < cnt; p += XK_PIECE)
            bulk_load(xs + p, xr + 16 * (uint64_t)(v0 + p), 16u * min((uint32_t)XK_PIECE, cnt - p), &bar);
    }
    const xent_tgt tg = xent_tgt_of(g, row);
    __syncthreads(); /* the barriers are initialised before anyone waits on them */
    if (X1 && C > 1)
        cluster_arrive_relaxed(); /* waited on before the first remote store (x1_post) */
    mbar_wait(&bar, 0);

    /* pass 1: max (and the sum of the logits, for smoothing) */
    float m = -CUDART_INF_F, sx = 0.0f;
    if (sizeof(R) == 2) {
        const uint32_t n2 = (uint32_t)sl_dt<DT>::store(-CUDART_INF_F) * 0x10001u;
        uint32_t pm = n2;
#pragma unroll 4
        for (uint32_t j = threadIdx.x; j < cnt; j += XK_BLOCK) {
            const uint4 u = xs[j];
            pm = xk_pmax<DT>(xk_pmax<DT>(pm, u.x), xk_pmax<DT>(u.y, xk_pmax<DT>(u.z, u.w)));
        }
        const uint4 pv = make_uint4(pm, n2, n2, n2);
        m = fmaxf(sbwd_el<DT>(pv, 0), sbwd_el<DT>(pv, 1));
    }
#pragma unroll 4
    for (uint32_t j = threadIdx.x; j < cnt && !(sizeof(R) == 2 && g.eps == 0.0f); j += XK_BLOCK) {
        const uint4 u = xs[j];
        if (sizeof(R) == 4) {
#pragma unroll
            for (int k = 0; k < VE; k++)
                m = fmaxf(m, sbwd_el<DT>(u, k));
        }
        if (g.eps != 0.0f) {
#pragma unroll
            for (int k = 0; k < VE; k++)
                sx += sbwd_el<DT>(u, k);
        }
    }
    m = X1 ? smx_warp<smx_max_op>(m) : smx_block<XK_BLOCK, smx_max_op>(m, red);
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    /* pass 2: sum of exp(x - ref) = 2^(x log2 e + nl), one fma and one
     * MUFU.EX2 an element; the thread's vectors j = tid + 512 i, i < nt,
     * XU a step without a bounds test between them */
    const float L2E = 1.4426950408889634f, nl = -ref * L2E;
    const uint32_t nt = threadIdx.x < cnt ? (cnt - threadIdx.x + XK_BLOCK - 1) / XK_BLOCK : 0u;
    const uint4 *xt0 = xs + threadIdx.x;
    float s = 0.0f;
    {
        uint32_t i = 0;
        for (; i + XU <= nt; i += XU) {
            uint4 u[XU];
            float sq[XU];
#pragma unroll
            for (int q = 0; q < XU; q++)
                u[q] = xt0[(i + q) * XK_BLOCK], sq[q] = 0.0f;
#pragma unroll
            for (int k = 0; k < VE; k++)
#pragma unroll
                for (int q = 0; q < XU; q++)
                    sq[q] += xk_ex2(fmaf(xk_el<DT>(u[q], k), L2E, nl));
#pragma unroll
            for (int q = 0; q < XU; q++)
                s += sq[q];
        }
        for (; i < nt; i++) {
            const uint4 u = xt0[i * XK_BLOCK];
            float s0 = 0.0f;
#pragma unroll
            for (int k = 0; k < VE; k++)
                s0 += xk_ex2(fmaf(xk_el<DT>(u, k), L2E, nl));
            s += s0;
        }
    }
    if (X1) {
        s = smx_warp<smx_sum_op>(s);
        if (g.eps != 0.0f)
            sx = smx_warp<smx_sum_op>(sx);
    } else {
        s = smx_block<XK_BLOCK, smx_sum_op>(s, red);
        if (g.eps != 0.0f)
            sx = smx_block<XK_BLOCK, smx_sum_op>(sx, red);
    }
    /* the target's logit, from the chunk that holds it */
    const int32_t tc = tg.ign || tg.bad ? -1 : (int32_t)tg.t;
    const int32_t c0 = (int32_t)(v0 * VE);
    float xt = 0.0f;
    if (threadIdx.x == 0 && tc >= c0 && tc < c0 + (int32_t)(cnt * VE))
        xt = sl_dt<DT>::load(((const R *)xs)[tc - c0]);
    float M = m, S = s, SX = sx, XT = xt;
    if (X1) {
        /* the row's state: every warp's (m, s, sx, xt) into every CTA's
         * slots (xt: thread 0's, the only one not 0), one wait, every warp
         * folds the NW x C of them (no bar.sync, no cluster barrier) */
        const float v[4] = {m, s, sx, __shfl_sync(0xffffffffu, xt, 0)};
        x1_post<4, NW>(v, xsl, &xb, C, rank, true);
        const float4 r = xk_fold_slots<NW>(xsl, NW * C);
        M = r.x;
        S = r.y;
        SX = r.z;
        XT = r.w;
    } else if (C > 1) {
        cooperative_groups::cluster_group clg = cooperative_groups::this_cluster();
        if (threadIdx.x == 0) {
            cl[0] = m;
            cl[1] = s;
            cl[2] = sx;
            cl[3] = xt;
        }
        clg.sync();
        if (threadIdx.x == 0) {
            smx_ms r = {-CUDART_INF_F, 0.0f, 0.0f};
            float a = 0.0f, b = 0.0f;
            for (unsigned q = 0; q < C; q++) {
                const float *o = clg.map_shared_rank(cl, q);
                const smx_ms e = {o[0], o[1], 0.0f};
                r = smx_ms_merge(r, e);
                a += o[2];
                b += o[3];
            }
            fin[0] = r.m;
            fin[1] = r.s;
            fin[2] = a;
            fin[3] = b;
        }
        __syncthreads();
        /* done reading the others' slots; waited on before exit */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        M = fin[0];
        S = fin[1];
        SX = fin[2];
        XT = fin[3];
    }
    if (rank == 0 && threadIdx.x == 0)
        xent_epilogue(g, row, tg, M, S, SX, XT);
    /* pass 3: the gradient, (exp(x - ref) exp(ref - M) / S - (1 - eps) [j = t] - eps / V) g:
     * one fma, MUFU.EX2, fma an element and a pack a pair; the target's
     * - (1 - eps) g is not tested for per element: the thread that owns
     * column t stores that one element again afterwards (the same
     * expression, minus one1g: the same rounding as a per-element test
     * gave). An ignored row stores zeros (whatever the logits hold). */
    const float Mref = M == -CUDART_INF_F ? 0.0f : M;
    /* X1: ref is the warp's max; a warp of -inf (and NaN) logits takes
     * factor 0 (its terms are 0 or NaN), not exp(0 - M), which overflows
     * where the row's max is under -88 */
    const float factor =
        (M == -CUDART_INF_F ? CUDART_NAN_F : X1 && m == -CUDART_INF_F ? 0.0f : expf(ref - Mref)) / S;
    const float gs = xent_gscale(g, tg), one1g = (1.0f - g.eps) * gs, fg = factor * gs,
                og = g.eps / (float)g.cols * gs;
    uint4 *dt0 = (uint4 *)dr + v0 + threadIdx.x;
    if (tg.ign) {
        for (uint32_t i = 0; i < nt; i++)
            dt0[i * XK_BLOCK] = make_uint4(0u, 0u, 0u, 0u);
    } else {
        uint32_t i = 0;
        for (; i + XU <= nt; i += XU) {
            uint4 u[XU];
#pragma unroll
            for (int q = 0; q < XU; q++)
                u[q] = xt0[(i + q) * XK_BLOCK];
#pragma unroll
            for (int q = 0; q < XU; q++) {
                float f[VE];
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = fmaf(xk_ex2(fmaf(xk_el<DT>(u[q], k), L2E, nl)), fg, -og);
                dt0[(i + q) * XK_BLOCK] = sbwd_pack<DT>(f);
            }
        }
        for (; i < nt; i++) {
            const uint4 u = xt0[i * XK_BLOCK];
            float f[VE];
#pragma unroll
            for (int k = 0; k < VE; k++)
                f[k] = fmaf(xk_ex2(fmaf(xk_el<DT>(u, k), L2E, nl)), fg, -og);
            dt0[i * XK_BLOCK] = sbwd_pack<DT>(f);
        }
        /* the target's element, by the thread that stored its vector
         * (program order: this store lands after that one) */
        const uint32_t te = (uint32_t)(tc - c0);
        if (tc >= c0 && te < cnt * VE && (te / VE) % XK_BLOCK == threadIdx.x) {
            const float x1 = sl_dt<DT>::load(((const R *)xs)[te]);
            ((R *)dr)[tc] = sl_dt<DT>::store(fmaf(xk_ex2(fmaf(x1, L2E, nl)), fg, -og) - one1g);
        }
    }
    if (!X1 && C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    /* the launcher runs this rung only on sm_90 and later */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

/* ---- host side -------------------------------------------------------------- */

/* K below is a row_bulk_cfg (row.cuh); rows longer than 8 x K::kp vectors
 * take chunks of up to XK_MAXV. */

template <class K> static const void *xk_fn(sl_dtype dt)
{
    enum { B = K::block, N = K::minb, X = K::x1 };
    return dt == SL_F32    ? (const void *)xent_bulk<SL_F32, B, N, X>
           : dt == SL_BF16 ? (const void *)xent_bulk<SL_BF16, B, N, X>
                           : (const void *)xent_bulk<SL_F16, B, N, X>;
}

/* The chunking of a's rows into C chunks of at most kp vectors, or where
 * that needs more than 8, of at most XK_MAXV: false where the rung does
 * not apply. */
static bool xk_plan(const sl_xent_args *a, uint32_t kp, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    if (!a->dx || !sl_cuda_row_clusters())
        return false;
    const uint64_t es = sl_dtype_size(a->dtype);
    if (((uintptr_t)a->x & 15u) || ((uintptr_t)a->dx & 15u) || (a->ld * es) % 16 || (a->cols * es) % 16)
        return false;
    const uint64_t nv = a->cols * es / 16;
    *nvec = (uint32_t)nv;
    return sl_cuda_row_chunks(nv, kp, a->rows, C, cv) ||
           (kp < XK_MAXV && sl_cuda_row_chunks(nv, XK_MAXV, a->rows, C, cv));
}

/* Whether the device loaded configuration K's sm_90 code for dt
 * (bulk_code_ok: a build without sm_90 that runs on an H200 JITs PTX whose
 * kernel body is empty and traps). */
template <class K> static sl_status xk_code(sl_dtype dt)
{
    static int cache[3][SL_MAX_DEVICES];
    return bulk_code_ok(xk_fn<K>(dt), cache[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

/* Whether configuration K takes a's shape (its plan exists; xk_run also
 * refuses where the sm_90 code was not loaded). */
template <class K> static bool xk_fits(const sl_xent_args *a)
{
    unsigned C;
    uint32_t nvec, cv;
    return xk_plan(a, K::kp, &C, &nvec, &cv);
}

/* Once per device and dtype: allow the kernel XK_MAXV x 16 bytes of
 * dynamic shared memory (above the default 48 KiB). */
template <class K> static sl_status xk_prepare(sl_dtype dt)
{
    static int ready[3][SL_MAX_DEVICES];
    return sl_cuda_row_smem_allow(xk_fn<K>(dt), XK_MAXV * 16, ready[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

/* The rung `who` of configuration K on a (checked here). */
template <class K> static sl_status xk_run(const sl_xent_args *a, const char *who)
{
    char what[48];
    snprintf(what, sizeof what, "cross-entropy %s", who);
    sl_status st = sl_xent_check(a, what);
    if (st != SL_OK || a->rows == 0)
        return st;
    unsigned C;
    uint32_t nvec, cv;
    if (!xk_plan(a, K::kp, &C, &nvec, &cv))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s stages a row in shared memory by bulk copies (sm_90): it needs logits and dx 16-byte "
                       "aligned, rows a multiple of 16 bytes and at most %u bytes (%llu columns of %zu bytes)",
                       who, 8u * XK_MAXV * 16u, (unsigned long long)a->cols, sl_dtype_size(a->dtype));
    st = xk_code<K>(a->dtype);
    if (st != SL_OK || (st = xk_prepare<K>(a->dtype)) != SL_OK)
        return st;
    xent_geo g = xent_geo_of(a);
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(xk_fn<K>(a->dtype), a->rows * C, K::block, C, (size_t)cv * 16, params,
                                   a->stream);
}

template <class K> static sl_status xk_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = xk_prepare<K>(dt);
    return st != SL_OK ? st : sl_cuda_kernel_attrs(xk_fn<K>(dt), K::block, (size_t)XK_MAXV * 16, out);
}

#endif /* SL_XK_BULK_CUH */
