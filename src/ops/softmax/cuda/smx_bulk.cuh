/*
 * smx_bulk.cuh - softmax's bulk kernel (the row staged in shared memory by
 * bulk copies; 09_bulk.cu says what it does and why) as one template for
 * its configurations: the block (512 threads for bulk), the chunk the plan
 * prefers (bulk: the fewest chunks of <= 72 KiB) and the flag X1, the
 * one-sided cluster exchange of the warps' (max, sum) (cluster_x1.cuh;
 * 10_bulk_ex.cu). bulk is smx_bulk<DT, 512, 3, 0> and its plan with the
 * preferred chunk at the 72 KiB limit: the kernel and launch of before.
 * A piece (a bulk copy and an mbarrier) is two vectors a thread: 16 KiB
 * for blocks of 512, 8 KiB for blocks of 256.
 */
#ifndef SL_SMX_BULK_CUH
#define SL_SMX_BULK_CUH

#include "bulk.cuh"
#include "cluster_x1.cuh"
#include "sbwd.cuh"

#include <cooperative_groups.h>

enum {
    SB_MAXV = 4608, /* 16-byte vectors a chunk at most: 72 KiB, three blocks an SM (228 KiB) */
    SB_MINV = 1024  /* the smallest chunk the few-rows split makes: 16 KiB */
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/* exp for the dtype: the accurate expf for f32 (the op's bound counts its
 * 2 ulp), ex2.approx.ftz for 16-bit storage (below the output's rounding;
 * softmax.cuh). */
template <int DT> static __device__ __forceinline__ float sb_exp(float d)
{
    return DT == SL_F32 ? expf(d) : smx_exp_ftz(d);
}

/* The max of a state's m and the elements of two raw vectors (16-bit: on
 * packed pairs, one HMNMX2 a word, widened once). Never NaN: fmaxf skips
 * a NaN element and m is not NaN. */
template <int DT> static __device__ __forceinline__ float sb_vmax(float m, const uint4 &a, const uint4 &b)
{
    typedef typename sl_dt<DT>::raw R;
    if constexpr (sizeof(R) == 4) {
#pragma unroll
        for (int k = 0; k < 4; k++)
            m = fmaxf(m, fmaxf(sbwd_el<DT>(a, k), sbwd_el<DT>(b, k)));
        return m;
    } else {
        const uint32_t h = smx_hmax2<DT>(smx_hmax2<DT>(smx_hmax2<DT>(a.x, a.y), smx_hmax2<DT>(a.z, a.w)),
                                         smx_hmax2<DT>(smx_hmax2<DT>(b.x, b.y), smx_hmax2<DT>(b.z, b.w)));
        return fmaxf(m, fmaxf(sl_dt<DT>::load((R)(h & 0xffffu)), sl_dt<DT>::load((R)(h >> 16))));
    }
}

/* Fold the lanes' online states (m, s) over the warp: the warp's max M by
 * a butterfly, each s rescaled to it (a state of -inf only has factor 0,
 * so 0 stays 0 and a NaN stays NaN), then a butterfly sum. Every lane
 * gets the same bits (each level adds the same two values). */
template <int DT> static __device__ __forceinline__ void sb_warp_fold(float &m, float &s)
{
    float M = m;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, o));
    s *= m == -CUDART_INF_F ? 0.0f : sb_exp<DT>(m - M);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    m = M;
}

/* X1: the row's (max, sum) from the n <= NW x 8 warp states (m, s) of
 * the exchange's slots xr (pairs): the max over all of them (lane l reads
 * slots l, l + 32, ...; a butterfly), then each state's sum rescaled to it
 * (one exp a state: factor 0 for a state of -inf) and added in the same
 * order, a butterfly sum. Every warp of every CTA of the row folds the
 * same slots by the same steps: the same bits. */
template <int DT, int NW>
static __device__ __forceinline__ void sb_fold_slots(const float *xr, unsigned n, float &M, float &S)
{
    const unsigned lane = threadIdx.x & 31u;
    float m = -CUDART_INF_F;
#pragma unroll
    for (unsigned i = 0; i < (NW * 8 + 31) / 32; i++)
        if (lane + 32 * i < n)
            m = fmaxf(m, xr[2 * (lane + 32 * i)]);
    m = smx_warp<smx_max_op>(m);
    float s = 0.0f;
#pragma unroll
    for (unsigned i = 0; i < (NW * 8 + 31) / 32; i++)
        if (lane + 32 * i < n) {
            const float2 e = *(const float2 *)(xr + 2 * (lane + 32 * i));
            s += e.y * (e.x == -CUDART_INF_F ? 0.0f : sb_exp<DT>(e.x - m));
        }
    S = smx_warp<smx_sum_op>(s);
    M = m;
}

#endif

/* BLOCK threads, at most MINB blocks an SM (sm_90: the register cap; the
 * other architectures this file is compiled for get no bound, the body
 * being sm_90 only: sm_75 runs 1024 threads an SM and ptxas refuses
 * 1536), X1 the one-sided exchange. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SB_MINB(MINB) (MINB)
#else
#define SB_MINB(MINB) 1
#endif

template <int DT, int BLOCK, int MINB, int X1>
static __global__ void __launch_bounds__(BLOCK, SB_MINB(MINB))
    smx_bulk(smx_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    enum {
        NW = BLOCK / 32,
        PIECE = 2 * BLOCK, /* vectors a bulk copy and an mbarrier: two a thread */
        PIECES = (SB_MAXV + PIECE - 1) / PIECE
    };
    const int VE = smx_vec<DT>::VE;
    extern __shared__ __align__(128) uint4 xs[];
    __shared__ float wm[X1 ? 1 : NW], ws[X1 ? 1 : NW];
    __shared__ float cl[2];  /* !X1: this block's (max, sum): read by the cluster */
    __shared__ float fin[2]; /* !X1: the row's (max, 1 / sum) */
    __shared__ __align__(8) float xr[X1 ? NW * 8 * 2 : 2]; /* X1: the cluster's warp states (m, s) */
    __shared__ __align__(8) uint64_t bar[PIECES], xb;
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const uint32_t npc = (cnt + PIECE - 1) / PIECE;
    const uint32_t t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const char *xg = (const char *)g.x + row * g.ld * sizeof(R) + 16 * (uint64_t)v0;
    char *yr = (char *)g.y + row * g.ld * sizeof(R) + 16 * (uint64_t)v0;
    if (t == 0) {
#pragma unroll
        for (uint32_t p = 0; p < PIECES; p++)
            mbar_init(&bar[p], 1);
        if (X1)
            x1_arm(&xb, NW, C, 8);
#pragma unroll
        for (uint32_t p = 0; p < PIECES; p++) {
            if (p < npc) {
                const uint32_t b = 16u * min((uint32_t)PIECE, cnt - p * PIECE);
                mbar_arrive_expect(&bar[p], b);
                bulk_load(xs + p * PIECE, xg + 16 * (uint64_t)(p * PIECE), b, &bar[p]);
            }
        }
    }
    __syncthreads(); /* the barriers are initialised before anyone waits on them */
    if (X1 && C > 1)
        cluster_arrive_relaxed(); /* waited on before the first remote store (x1_post) */

    /* Columns past the chunk read as -inf (no term, no max). */
    const uint32_t ninf = sizeof(R) == 4 ? __float_as_uint(-CUDART_INF_F)
                                         : (uint32_t)sl_dt<DT>::store(-CUDART_INF_F) * 0x10001u;
    const uint4 pad = make_uint4(ninf, ninf, ninf, ninf);

    /* sweep 1: the thread's online (max, sum), a piece at a time as it lands */
    float m = -CUDART_INF_F, s = 0.0f;
#pragma unroll 1
    for (uint32_t p = 0; p < npc; p++) {
        mbar_wait(&bar[p], 0);
        const uint32_t j = p * PIECE + t;
        const uint4 a = j < cnt ? xs[j] : pad, b = j + BLOCK < cnt ? xs[j + BLOCK] : pad;
        const float mv = sb_vmax<DT>(m, a, b);
        if (mv > m) { /* m = -inf: factor 0 (a NaN sum stays NaN) */
            s *= sb_exp<DT>(m - mv);
            m = mv;
        }
        const float ref = m == -CUDART_INF_F ? 0.0f : m; /* softmax.cuh, smx_ms: no -inf - -inf */
        float ta = 0.0f, tb = 0.0f;
#pragma unroll
        for (int k = 0; k < VE; k++) {
            ta += sb_exp<DT>(sbwd_el<DT>(a, k) - ref);
            tb += sb_exp<DT>(sbwd_el<DT>(b, k) - ref);
        }
        s += ta + tb;
    }

    sb_warp_fold<DT>(m, s);
    float M, inv;
    if (X1) {
        /* the row's state: every warp's (m, s) into every CTA's slots, one
         * wait, every warp folds the NW x C of them (no bar.sync, no
         * cluster barrier) */
        const float v[2] = {m, s};
        x1_post<2, NW>(v, xr, &xb, C, rank, true);
        float S;
        sb_fold_slots<DT, NW>(xr, NW * C, M, S);
        inv = 1.0f / S;
    } else {
        /* the block's state: each warp's, then warp 0 folds the NW */
        if (lane == 0) {
            wm[warp] = m;
            ws[warp] = s;
        }
        __syncthreads();
        if (warp == 0) {
            float bm = lane < NW ? wm[lane] : -CUDART_INF_F, bs = lane < NW ? ws[lane] : 0.0f;
            sb_warp_fold<DT>(bm, bs);
            if (lane == 0) {
                if (C > 1) {
                    cl[0] = bm;
                    cl[1] = bs;
                } else {
                    fin[0] = bm;
                    fin[1] = 1.0f / bs;
                }
            }
        }
        if (C > 1) {
            /* the row's state: lane q of warp 0 reads rank q's, one round trip */
            cooperative_groups::cluster_group clg = cooperative_groups::this_cluster();
            clg.sync();
            if (warp == 0) {
                float rm = -CUDART_INF_F, rs = 0.0f;
                if (lane < C) {
                    const float *o = clg.map_shared_rank(cl, lane);
                    rm = o[0];
                    rs = o[1];
                }
                sb_warp_fold<DT>(rm, rs);
                if (lane == 0) {
                    fin[0] = rm;
                    fin[1] = 1.0f / rs;
                }
            }
            __syncthreads();
            /* done reading the others' slots; waited on before exit */
            asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        } else {
            __syncthreads();
        }
        M = fin[0];
        inv = fin[1];
    }

    /* sweep 2: y = exp(x - M) (1 / S), 16-byte stores. M = -inf only for a
     * row of -inf (and NaN): -inf - -inf = NaN, as the formula. */
#pragma unroll 1
    for (uint32_t p = 0; p < npc; p++) {
#pragma unroll
        for (uint32_t h = 0; h < 2; h++) {
            const uint32_t j = p * PIECE + h * BLOCK + t;
            if (j < cnt) {
                const uint4 u = xs[j];
                float f[VE];
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = sb_exp<DT>(sbwd_el<DT>(u, k) - M) * inv;
                *(uint4 *)(yr + 16 * (uint64_t)j) = sbwd_pack<DT>(f);
            }
        }
    }
    if (!X1 && C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    /* the launcher runs this rung only where the loaded code is sm_90 or later */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

/* ---- host side -------------------------------------------------------------- */

/* K below is a row_bulk_cfg (row.cuh); rows longer than 8 x K::kp vectors
 * take chunks of up to SB_MAXV. */

template <class K> static const void *sb_fn(sl_dtype dt)
{
    enum { B = K::block, N = K::minb, X = K::x1 };
    return dt == SL_F32    ? (const void *)smx_bulk<SL_F32, B, N, X>
           : dt == SL_BF16 ? (const void *)smx_bulk<SL_BF16, B, N, X>
                           : (const void *)smx_bulk<SL_F16, B, N, X>;
}

/* The chunking of a's rows, false where the rung does not apply: the
 * fewest C chunks of at most kp vectors, or where that needs more than 8,
 * of at most SB_MAXV (sl_cuda_row_chunks), then, while the rows leave SMs
 * without a block (rows x C <= SMs) and the chunks stay at least SB_MINV
 * vectors, twice as many; chunks rounded up to 8 vectors (128 bytes) so
 * that every block's copy starts on a line of the row. */
static bool sb_plan(const sl_args *a, uint32_t kp, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    if (!sl_cuda_row_clusters())
        return false;
    const uint64_t es = sl_dtype_size(a->dtype), ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if ((((uintptr_t)a->buf[0] | (uintptr_t)a->buf[1]) & 15u) || (ld * es) % 16 || (a->shape.cols * es) % 16)
        return false;
    const uint64_t nv = a->shape.cols * es / 16, rows = a->shape.rows;
    unsigned c;
    uint32_t per;
    if (!sl_cuda_row_chunks(nv, kp, rows, &c, &per) &&
        (kp >= SB_MAXV || !sl_cuda_row_chunks(nv, SB_MAXV, rows, &c, &per)))
        return false;
    const uint64_t sms = (uint64_t)sl_cuda_row_sms();
    while (c < 8 && rows * c <= sms && (nv + 2 * c - 1) / (2 * c) >= SB_MINV)
        c *= 2;
    const uint64_t chunk = ((nv + c - 1) / c + 7) / 8 * 8; /* <= SB_MAXV, a multiple of 8 */
    *C = c;
    *nvec = (uint32_t)nv;
    *cv = (uint32_t)chunk;
    return true;
}

/* Once per device and dtype: allow SB_MAXV x 16 bytes of dynamic shared
 * memory (above the default 48 KiB). */
template <class K> static sl_status sb_prepare(sl_dtype dt)
{
    static int ready[3][SL_MAX_DEVICES];
    return sl_cuda_row_smem_allow(sb_fn<K>(dt), SB_MAXV * 16, ready[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

/* The rung `who` of configuration K: a checked here (smx_check). */
template <class K> static sl_status sb_run(const sl_args *a, const char *who)
{
    sl_status st = smx_check(a, who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    int cc = 0;
    if ((st = sl_cuda_current_cc(&cc)) != SL_OK)
        return st;
    if (cc < 90)
        return sl_fail(SL_ERR_UNSUPPORTED, "softmax %s: needs sm_90 or newer (cp.async.bulk, clusters); this "
                                           "device is sm_%d", who, cc);
    static int code_cache[SL_MAX_DEVICES];
    if ((st = bulk_code_ok(sb_fn<K>(a->dtype), code_cache)) != SL_OK)
        return st;
    unsigned C;
    uint32_t nvec, cv;
    if (!sb_plan(a, K::kp, &C, &nvec, &cv)) {
        const size_t es = sl_dtype_size(a->dtype);
        const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "softmax %s stages a row in shared memory by bulk copies: it needs x and y 16-byte aligned "
                       "(here at +%u and +%u bytes), cols and ld multiples of 16 bytes and rows of at most %u bytes "
                       "(here %llu and %llu columns of %zu bytes)",
                       who, (unsigned)((uintptr_t)a->buf[0] & 15u), (unsigned)((uintptr_t)a->buf[1] & 15u),
                       8u * SB_MAXV * 16u, (unsigned long long)a->shape.cols, (unsigned long long)ld, es);
    }
    if ((st = sb_prepare<K>(a->dtype)) != SL_OK)
        return st;
    smx_geo g = smx_geo_of(a);
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(sb_fn<K>(a->dtype), a->shape.rows * C, K::block, C, (size_t)cv * 16, params,
                                   a->stream);
}

template <class K> static sl_status sb_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = sb_prepare<K>(dt);
    return st != SL_OK ? st : sl_cuda_kernel_attrs(sb_fn<K>(dt), K::block, (size_t)SB_MAXV * 16, out);
}

#endif /* SL_SMX_BULK_CUH */
