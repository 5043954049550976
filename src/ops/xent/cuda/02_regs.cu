/*
 * cross-entropy rung 2 (ours): fused forward and backward with the row in
 * registers, the logits read once and the gradient written once. A row is
 * split over a team: one warp (rows of up to 32 x EPT slots; 4 rows per
 * 128-thread block, or one per 32-thread block when the rows would leave
 * SMs idle), one block of up to 256 threads, or a thread block cluster of
 * C = 2, 4 or 8 blocks of up to 1024 threads, the block size any multiple
 * of 32 that covers the row (xg_choose) (up to 8192 threads x EPT: 2^18 slots for bf16 / f16, EPT = 32,
 * so V = 262144 in one cluster; 2^17 for f32, EPT = 16). Each thread
 * loads its EPT elements as 16-byte vectors all in flight (vector k of
 * thread t is k T + t), keeps them packed as loaded (16 registers), and forms its max, then its
 * sum of exp(x - m_team) and (with smoothing) of x; the team reduces
 * them, a cluster's blocks exchange their (max, sum, sum x) once through
 * distributed shared memory and merge them as the online normaliser does;
 * lse and the loss go out from the team's first thread, and each thread
 * writes its gradient elements from its registers,
 * (exp(x - m_b) exp(m_b - M) / S - (1 - eps) [j = t] - eps / V) g.
 * Safe in place (dx = x): the target logit is read, and every element of
 * the row loaded, before the team's barrier; the stores come after it.
 *
 * Change from rung 1: one read instead of two. Expectation: the bytes of
 * a copy (read x, write dx) plus 12 bytes a row; at DRAM shapes up to
 * 2^15 columns a block per row with blocks of <= 256 threads keeps
 * several rows per SM in flight: ~0.95-1.0 of the copy. Long rows
 * (2^17, 2^18) take clusters of 512- and 1024-thread blocks, one or two
 * per SM, whose load and store phases alternate around the cluster
 * barrier: below the copy by that barrier's share.
 */
#include "xent.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* Elements a thread: 32 for 16-bit storage (16 registers packed), 16
 * for f32 (the first build spilled 128 bytes a thread with 32 f32 under
 * the 64-register cap). */
#define XG_EPT(DT) ((DT) == SL_F32 ? SL_XENT_REGS_EPT / 2 : SL_XENT_REGS_EPT)


/* Vector v of the row, raw, columns outside it -inf. */
template <int DT> static __device__ __forceinline__ uint4 xent_loadraw(const sbwd_rowv &w, uint32_t v)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    const int32_t c0 = (int32_t)(v * VE) - w.o;
    if (c0 >= 0 && c0 + VE <= w.n)
        return *(const uint4 *)(w.y0 + 16 * (uint64_t)v);
    const R *p = (const R *)(w.y0 + 16 * (uint64_t)v);
    const uint32_t ninf = (uint32_t)sl_dt<DT>::store(-CUDART_INF_F);
    uint32_t q[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int k = 0; k < VE; k++) {
        const int32_t c = c0 + k;
        const uint32_t e = c >= 0 && c < w.n ? (uint32_t)p[k] : ninf;
        if (sizeof(R) == 4)
            q[k] = e;
        else
            q[k >> 1] |= e << (16 * (k & 1));
    }
    return make_uint4(q[0], q[1], q[2], q[3]);
}

/* WARP: a warp per row (TPR = 32, 4 or 1 rows a block); else a block
 * (blockDim.x threads, any multiple of 32 up to 1024) or a cluster of C
 * blocks per row. Registers capped at 64 (1024 threads an SM). */
template <bool WARP, int DT>
static __global__ void __launch_bounds__(WARP ? 128 : 1024, WARP ? 8 : 1) xent_regs(xent_geo g, unsigned C)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE, NV = XG_EPT(DT) / VE;
    __shared__ float red[32];
    __shared__ float cl[3]; /* the cluster's exchange (sm_90 and later) */
    (void)cl;
    uint64_t row;
    uint32_t t, rank, tpr;
    if (WARP) {
        row = (uint64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
        t = threadIdx.x & 31;
        rank = 0;
        tpr = 32;
        if (row >= g.rows)
            return; /* a whole warp */
    } else {
        row = blockIdx.x / C;
        rank = blockIdx.x % C;
        t = threadIdx.x;
        tpr = blockDim.x;
    }
    const xent_tgt tg = xent_tgt_of(g, row);
    const bool lead = rank == 0 && t == 0;
    const float xt = lead ? xent_xt<DT>(g, row, tg) : 0.0f;
    sbwd_geo sg;
    sg.y = g.x;
    sg.g = g.x;
    sg.d = g.dx;
    sg.rows = g.rows;
    sg.cols = g.cols;
    sg.ld = g.ld;
    const sbwd_rowv w = sbwd_rowv_of<DT>(sg, row);
    const uint32_t v0 = rank * tpr * NV + t;
    const uint32_t n2 = (uint32_t)sl_dt<DT>::store(-CUDART_INF_F) * (sizeof(R) == 4 ? 1u : 0x10001u);
    uint4 p[NV];
#pragma unroll
    for (int k = 0; k < NV; k++)
        p[k] = v0 + k * tpr < w.nvv ? xent_loadraw<DT>(w, v0 + k * tpr) : make_uint4(n2, n2, n2, n2);
    float m = -CUDART_INF_F;
#pragma unroll
    for (int k = 0; k < NV; k++)
#pragma unroll
        for (int j = 0; j < VE; j++)
            m = fmaxf(m, sbwd_el<DT>(p[k], j));
    m = WARP ? smx_warp<smx_max_op>(m) : xent_block<smx_max_op>(m, red);
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    float s = 0.0f, sx = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        float sk = 0.0f;
#pragma unroll
        for (int j = 0; j < VE; j++)
            sk += xent_exp(sbwd_el<DT>(p[k], j) - ref);
        s += sk;
    }
    if (g.eps != 0.0f) {
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int32_t c0 = (int32_t)((v0 + k * tpr) * VE) - w.o;
#pragma unroll
            for (int j = 0; j < VE; j++)
                if (c0 + j >= 0 && c0 + j < w.n)
                    sx += sbwd_el<DT>(p[k], j);
        }
    }
    if (WARP) {
        s = smx_warp<smx_sum_op>(s);
        sx = smx_warp<smx_sum_op>(sx);
    } else {
        s = xent_block<smx_sum_op>(s, red);
        sx = xent_block<smx_sum_op>(sx, red);
    }
    /* the row's (M, S, SX); factor: exp(ref - M) / S for this team's terms */
    float M = m, S = s, SX = sx;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (!WARP && C > 1) {
        cg::cluster_group clg = cg::this_cluster();
        if (threadIdx.x == 0) {
            cl[0] = m;
            cl[1] = s;
            cl[2] = sx;
        }
        clg.sync();
        smx_ms row_ms = {-CUDART_INF_F, 0.0f, 0.0f};
        SX = 0.0f;
        for (unsigned q = 0; q < C; q++) {
            const float *o = clg.map_shared_rank(cl, q);
            const smx_ms b = {o[0], o[1], 0.0f};
            row_ms = smx_ms_merge(row_ms, b);
            SX += o[2];
        }
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        M = row_ms.m;
        S = row_ms.s;
    }
#endif
    const float Mref = M == -CUDART_INF_F ? 0.0f : M;
    if (lead)
        xent_epilogue(g, row, tg, M, S, SX, xt);
    if (g.dx) {
        const float factor = (M == -CUDART_INF_F ? CUDART_NAN_F : expf(ref - Mref)) / S;
        /* dx = e fg - og, and - (1 - eps) g at the target's column (tested
         * once a vector): 2 instructions an element beyond the exp. An
         * ignored row writes zeros whatever its logits (0 x NaN is NaN). */
        const float gs = xent_gscale(g, tg), one1g = (1.0f - g.eps) * gs, fg = factor * gs,
                    og = g.eps / (float)g.cols * gs;
        const int32_t tc = tg.ign || tg.bad ? -1 : (int32_t)tg.t;
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const uint32_t v = v0 + k * tpr;
            if (v < w.nvv) {
                const int32_t c0 = (int32_t)(v * VE) - w.o;
                float f[VE];
#pragma unroll
                for (int j = 0; j < VE; j++)
                    f[j] = tg.ign ? 0.0f : fmaf(xent_exp(sbwd_el<DT>(p[k], j) - ref), fg, -og);
                if ((uint32_t)(tc - c0) < (uint32_t)VE) {
#pragma unroll
                    for (int j = 0; j < VE; j++)
                        if (c0 + j == tc)
                            f[j] -= one1g;
                }
                if (c0 >= 0 && c0 + VE <= w.n) {
                    *(uint4 *)(w.d0 + 16 * (uint64_t)v) = sbwd_pack<DT>(f);
                } else {
                    R *q = (R *)(w.d0 + 16 * (uint64_t)v);
#pragma unroll
                    for (int j = 0; j < VE; j++)
                        if (c0 + j >= 0 && c0 + j < w.n)
                            q[j] = sl_dt<DT>::store(f[j]);
                }
            }
        }
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (!WARP && C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}

template <bool WARP> static const void *xg_fn(sl_dtype dt)
{
    return dt == SL_F32    ? (const void *)xent_regs<WARP, SL_F32>
           : dt == SL_BF16 ? (const void *)xent_regs<WARP, SL_BF16>
                           : (const void *)xent_regs<WARP, SL_F16>;
}

struct xg_cfg {
    const void *fn;
    int block, tpr;
    unsigned c;
};

/* The team for rows of `need` element slots, EPT elements a thread: a
 * warp up to 32 EPT; else T = ceil(need / EPT) threads, one block of T
 * rounded up to a multiple of 32 while T <= 256, else a cluster of C = 2,
 * 4 or 8 blocks (the fewest that keep blocks at <= 256 threads, else 8)
 * of ceil(T / C) threads rounded up to 32: the first H200 run rounded T
 * up to a power of two, and V = 151936 in bf16 ran 8 x 1024 threads with
 * 42% of the slots empty, at 0.22 of the copy. false: more than 8 x 1024
 * threads. */
static bool xg_choose(sl_dtype dt, uint64_t rows, uint64_t need, xg_cfg *c)
{
    const uint64_t ept = XG_EPT(dt);
    c->c = 1;
    if (need <= 32 * ept) {
        const bool few = rows < 4 * (uint64_t)sl_cuda_row_sms();
        c->tpr = 32;
        c->block = few ? 32 : 128;
        c->fn = xg_fn<true>(dt);
        return true;
    }
    const uint64_t T = (need + ept - 1) / ept;
    unsigned C = 1;
    while (C < 8 && (T + C - 1) / C > 256)
        C *= 2;
    const uint64_t block = ((T + C - 1) / C + 31) / 32 * 32;
    if (block > 1024)
        return false;
    c->c = C;
    c->block = c->tpr = (int)block;
    c->fn = xg_fn<false>(dt);
    return true;
}

static bool xg_fits(const sl_xent_args *a, xg_cfg *c)
{
    if (!a->dx || ((((uintptr_t)a->x ^ (uintptr_t)a->dx) & 15u) != 0))
        return false;
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t o = (a->ld * es) % 16 == 0 ? ((uintptr_t)a->x & 15u) / es : ve - 1;
    const uint64_t need = (a->cols + o + ve - 1) / ve * ve;
    if (!xg_choose(a->dtype, a->rows, need, c))
        return false;
    if (c->c > 1 && !sl_cuda_row_clusters())
        return false;
    const uint64_t blocks = c->tpr == 32 ? (a->rows + c->block / 32 - 1) / (c->block / 32) : a->rows * c->c;
    return blocks <= 0x7fffffffu;
}

bool sl_cuda_xent_regs_fits(const sl_xent_args *a)
{
    xg_cfg c;
    return xg_fits(a, &c);
}

sl_status sl_cuda_xent_regs_run(const sl_xent_args *a)
{
    sl_status st = sl_xent_check(a, "cross-entropy regs");
    if (st != SL_OK || a->rows == 0)
        return st;
    xg_cfg c;
    if (!xg_fits(a, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "regs holds a row in a cluster's registers: %llu columns (logits and dx %s modulo 16 bytes) "
                       "do not fit; at most %llu",
                       (unsigned long long)a->cols,
                       a->dx && ((((uintptr_t)a->x ^ (uintptr_t)a->dx) & 15u) == 0) ? "aligned" : "at different offsets",
                       (unsigned long long)(SL_XENT_MAX_THREADS * XG_EPT(a->dtype) - (16 / sl_dtype_size(a->dtype) - 1)));
    xent_geo g = xent_geo_of(a);
    unsigned cl = c.c;
    void *params[] = {&g, &cl};
    const uint64_t blocks = c.tpr == 32 ? (a->rows + c.block / 32 - 1) / (c.block / 32) : a->rows * c.c;
    return sl_cuda_row_launch(c.fn, blocks, c.block, c.c, params, a->stream);
}

extern "C" sl_status sl_cuda_xent_regs(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cuda_xent_regs_run(&x);
}

extern "C" sl_status sl_cuda_xent_regs_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(xg_fn<false>(dt), 256, 0, out);
}

/* Where the bulk rung does not fit (sl_cuda_xent_fused_run, 03_bwd.cu
 * takes it first), the public function runs regs for rows of up to 2^15
 * columns where they fit, else twopass / split. The fourth H200 run (docs/ladder.md,
 * "cross-entropy") measured regs ahead at V = 32000 and 32768 (0.57-0.58
 * of the copy against 0.45) and behind or level beyond (50304: 0.44
 * against 0.45; 151936: 0.31 against 0.43; 262144: 0.36 against 0.44;
 * 128256 and 131072: 0.45 against 0.44). */
bool sl_cuda_xent_fused_pick_regs(const sl_xent_args *a)
{
    return a->cols <= ((uint64_t)1 << 15) && sl_cuda_xent_regs_fits(a);
}

/* The descriptor's api row: the public function's choice. */
extern "C" sl_status sl_cuda_xent_api(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cuda_xent_fused_run(&x);
}
