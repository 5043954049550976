/*
 * cross-entropy rung 4 (ours): fused forward and backward with the row
 * staged in shared memory by the bulk-copy engine (cp.async.bulk, sm_90;
 * bulk_copy.cuh), the logits read once from DRAM and the gradient written
 * once. A row of B bytes is cut into C = 1, 2, 4 or 8 equal chunks of at
 * most 72 KiB (the fewest that fit), one block of 512 threads a chunk, the
 * C blocks of a row one thread block cluster. Thread 0 issues the chunk's
 * loads (16 KiB a copy) on one mbarrier; the block then makes three passes
 * over shared memory: the chunk's max (16-bit storage: on packed pairs,
 * max.bf16x2 / max.f16x2, one instruction a word), its sum of
 * exp(x - m_b) (and, with smoothing, of x), then the gradient, stored from registers with 16-byte
 * st.global. A cluster's blocks exchange (max, sum, sum x, target logit)
 * once through distributed shared memory and merge them as the online
 * normaliser does (thread 0 reads the C slots, the block gets the result
 * through its own shared memory); the target's logit comes from the
 * chunk that holds it, so x is never read twice. In place (dx = x) is
 * safe: a block writes only its own chunk, after all of it has landed
 * (the target's element twice, by one thread, in program order).
 *
 * Change from rung 2 (regs): regs held a row in registers with 16
 * registers of data a thread under a 64-register cap, so at 2^15 columns
 * a row took a cluster of 4 x 256 threads and an SM held one row: its
 * load, reduce, cluster-barrier and store phases ran one after the other
 * (0.58 of the copy at 16384 x 2^15, docs/ladder.md). Here the data costs
 * no registers: an SM holds three chunks of <= 72 KiB (3 x 512 threads,
 * 40 registers), each in its own phase, so one block's loads overlap
 * another's passes and stores, and 16-64 KiB a chunk are in flight from
 * one instruction.
 * Limits: logits and dx 16-byte aligned, each row a whole number of
 * 16-byte vectors (cols x size and ld x size multiples of 16: every
 * vocabulary that is a multiple of 8 in bf16 / f16, of 4 in f32), at most
 * 8 x 72 KiB a row (2^18 + 2^15 bf16 columns, 2^17 + 2^14 f32), sm_90;
 * anything else is SL_ERR_UNSUPPORTED (the public function then takes
 * the other rungs).
 * Expectation (written before the first run): the copy's bytes plus 12 B
 * a row; about 12 instructions and 2 MUFU.EX2 an element, 0.2 and 0.28 ms
 * of issue at 16384 x 32000 bf16 on 132 SMs against ~0.7 ms of copy:
 * DRAM-bound, ~0.9-0.95 of the copy kernel at 16384 x {32000, 131072}.
 * Measured (H100, bf16, bandwidth / the copy kernel's in one process;
 * docs/ladder.md, "The bulk rungs"): 1.05 at 16384 x 32000 (one block a
 * row), 0.93 at 16384 x 131072 (clusters of 4; the packed max added 1%
 * there), against 0.73 for the unfused pair the public function ran
 * before. 32 KiB chunks (4 blocks an SM, clusters of 8) measured 0.89
 * and 0.87.
 *
 * Fewer instructions an element (fourth session, issue 33; H200 0.806 /
 * 0.791 of the copy at 2^17 / 2^18 bf16, ncu on an H100: issue 0.55 a
 * scheduler, DRAM 73%). Read from the sm_90 SASS of the bf16 kernel,
 * executed thread-instructions an element in the hot loops, before ->
 * after: max 0.75 -> 0.75 (HMNMX2 already), sum of exp 6.2 -> 4.4,
 * gradient 8.3 -> 5.1; 15.2 -> 10.3 (docs/ladder.md has the counts):
 *  - exp(x - ref) as 2^(x log2 e + nl), nl = -ref log2 e rounded once a
 *    block: one FFMA and one MUFU.EX2, where x - ref, a multiply and the
 *    MUFU took three (as 03_bwd.cu);
 *  - bf16 widened by one instruction an element (the high half masked,
 *    not shifted down and up);
 *  - the target's - (1 - eps) g not tested per element (8 compares and
 *    predicated adds a vector, a BSSY region): the thread that stored the
 *    target's vector stores that element again, same expression minus
 *    one1g (program order keeps its second store); an ignored row is a
 *    block-uniform loop of zero stores;
 *  - four vectors a step (XU) with no bounds test between them, the
 *    loads' and stores' addresses immediate offsets from one pointer;
 *  - the block's reductions read the 16 warp values as four LDS.128
 *    (row.cuh's smx_block with the block size a constant: its unrolled
 *    fold of red[0..15] is vectorised by the compiler; the generic
 *    xent_block loops over blockDim.x / 32).
 * Numerics of the fma form: the rounding of ref log2 e multiplies every
 * term 2^t of a block (its sum and its gradient) by one factor 2^e,
 * |e| <= |ref| log2 e 2^-24; within a block it cancels in p = 2^t / S, so
 * the target at the row's max (p near 1, p - (1 - eps) cancelling) stays
 * exact to the absolute term; across the cluster's blocks the factors
 * differ: (|ref| + |M|) 2^-24 relative on p, and the fma rounds once
 * (|x - ref| 2^-24): (|x - ref| + |ref| + |M|) 2^-24 <= 3 S 2^-24 where
 * |x|, |ref| <= S, and where they are not p <= e^-(|x| - S) and the
 * excess is under the absolute (16 + L) 2^-24: inside api.h's 4 S 2^-24
 * relative (the old form: 2 |x - ref| 2^-24). Tolerance text unchanged.
 */
#include "bulk_copy.cuh"
#include "xent.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

enum {
    XK_BLOCK = 512,
    XK_MAXV = 4608, /* 16-byte vectors a chunk: 72 KiB, three blocks an SM (228 KiB) */
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

/* Three 512-thread blocks an SM on sm_90 (2048 threads); the other
 * architectures this file is compiled for (the kernel body is sm_90 only)
 * get no bound: sm_75 runs 1024 threads an SM and ptxas refuses 1536. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define BULK_MIN_BLOCKS 3
#else
#define BULK_MIN_BLOCKS 1
#endif

template <int DT>
static __global__ void __launch_bounds__(XK_BLOCK, BULK_MIN_BLOCKS) xent_bulk(xent_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    extern __shared__ __align__(128) uint4 xs[];
    __shared__ __align__(16) float red[32];
    __shared__ float cl[4];  /* this block's (max, sum, sum x, target logit): read by the cluster */
    __shared__ float fin[4]; /* the row's, merged by thread 0 */
    __shared__ __align__(8) uint64_t bar;
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const char *xr = (const char *)g.x + row * g.ld * sizeof(R);
    char *dr = (char *)g.dx + row * g.ld * sizeof(R);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, cnt * 16u);
        for (uint32_t p = 0; p < cnt; p += XK_PIECE)
            bulk_load(xs + p, xr + 16 * (uint64_t)(v0 + p), 16u * min((uint32_t)XK_PIECE, cnt - p), &bar);
    }
    const xent_tgt tg = xent_tgt_of(g, row);
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
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
    m = smx_block<XK_BLOCK, smx_max_op>(m, red);
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
    s = smx_block<XK_BLOCK, smx_sum_op>(s, red);
    if (g.eps != 0.0f)
        sx = smx_block<XK_BLOCK, smx_sum_op>(sx, red);
    /* the target's logit, from the chunk that holds it */
    const int32_t tc = tg.ign || tg.bad ? -1 : (int32_t)tg.t;
    const int32_t c0 = (int32_t)(v0 * VE);
    float xt = 0.0f;
    if (threadIdx.x == 0 && tc >= c0 && tc < c0 + (int32_t)(cnt * VE))
        xt = sl_dt<DT>::load(((const R *)xs)[tc - c0]);
    float M = m, S = s, SX = sx, XT = xt;
    if (C > 1) {
        cg::cluster_group clg = cg::this_cluster();
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
    const float factor = (M == -CUDART_INF_F ? CUDART_NAN_F : expf(ref - Mref)) / S;
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
    if (C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    /* the launcher runs this rung only on sm_90 and later */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

static const void *xk_fn(sl_dtype dt)
{
    return dt == SL_F32    ? (const void *)xent_bulk<SL_F32>
           : dt == SL_BF16 ? (const void *)xent_bulk<SL_BF16>
                           : (const void *)xent_bulk<SL_F16>;
}

/* The chunking of a's rows into C chunks of at most XK_MAXV vectors:
 * false where the rung does not apply. */
static bool xk_plan(const sl_xent_args *a, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    if (!a->dx || !sl_cuda_row_clusters())
        return false;
    const uint64_t es = sl_dtype_size(a->dtype);
    if (((uintptr_t)a->x & 15u) || ((uintptr_t)a->dx & 15u) || (a->ld * es) % 16 || (a->cols * es) % 16)
        return false;
    const uint64_t nv = a->cols * es / 16;
    *nvec = (uint32_t)nv;
    return sl_cuda_row_chunks(nv, XK_MAXV, a->rows, C, cv);
}

/* Once per device and dtype: allow the kernel XK_MAXV x 16 bytes of
 * dynamic shared memory (above the default 48 KiB). */
static sl_status xk_prepare(sl_dtype dt)
{
    static int ready[3][SL_MAX_DEVICES];
    return sl_cuda_row_smem_allow(xk_fn(dt), XK_MAXV * 16, ready[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

bool sl_cuda_xent_bulk_fits(const sl_xent_args *a)
{
    unsigned c;
    uint32_t nv, cv;
    return xk_plan(a, &c, &nv, &cv);
}

sl_status sl_cuda_xent_bulk_run(const sl_xent_args *a)
{
    sl_status st = sl_xent_check(a, "cross-entropy bulk");
    if (st != SL_OK || a->rows == 0)
        return st;
    unsigned C;
    uint32_t nvec, cv;
    if (!xk_plan(a, &C, &nvec, &cv))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "bulk stages a row in shared memory by bulk copies (sm_90): it needs logits and dx 16-byte "
                       "aligned, rows a multiple of 16 bytes and at most %u bytes (%llu columns of %zu bytes)",
                       8u * XK_MAXV * 16u, (unsigned long long)a->cols, sl_dtype_size(a->dtype));
    st = xk_prepare(a->dtype);
    if (st != SL_OK)
        return st;
    xent_geo g = xent_geo_of(a);
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(xk_fn(a->dtype), a->rows * C, XK_BLOCK, C, (size_t)cv * 16, params, a->stream);
}

extern "C" sl_status sl_cuda_xent_bulk(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cuda_xent_bulk_run(&x);
}

extern "C" sl_status sl_cuda_xent_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = xk_prepare(dt);
    return st != SL_OK ? st : sl_cuda_kernel_attrs(xk_fn(dt), XK_BLOCK, (size_t)XK_MAXV * 16, out);
}
