/*
 * norm_bwd_rcl.cuh - the regs_cl kernel body of the norms' backwards
 * (issue 32): the row held in registers between its two passes, split
 * across a thread-block cluster, persistent clusters walking rows with the
 * next rows' loads in flight in a register ring. One template for
 * layernorm_bwd (MODE NORM_LN: two row sums, dw and db; its rung
 * layernorm_bwd/cuda/16_regs_cl.cu, where the design, floor and prediction
 * are written) and rmsnorm_bwd (NORM_RMS: one row sum, dw only;
 * rmsnorm_bwd/cuda/16_regs_cl.cu). Moved here from layernorm_bwd's rung
 * unchanged for NORM_LN with NR = 3 (its PTX is the same, instruction for
 * instruction, as before the move).
 *
 * A block of RCL_T = 256 threads owns a fixed chunk of cv <= 512 16-byte
 * vectors of every row (RCL_V = 2 a thread, the same columns for the whole
 * launch); C = ceil(vectors / 512) blocks (1-8) form a cluster, which walks
 * rows team, team + nteams, ... Each thread
 *   - keeps NR rows of its x and dy vectors in registers, a ring: row k is
 *     worked on while rows k + 1 .. k + NR - 1 are loads in flight (plain
 *     16-byte ld.global, predicated, issued right after row k - 1's dx);
 *   - pass 1 from its registers: the row sums (NORM_LN: sum w dy xh and
 *     sum w dy; NORM_RMS: sum w dy x; 16 terms in order) and the dw (db)
 *     terms in registers, the warp's butterfly, then the warp's sums
 *     st.async to slot rank x 8 + warp of every CTA of the cluster
 *     (cluster_x1.cuh: two slot sets and mbarriers alternating by row, one
 *     wait, a fold of the 8 C slots in index order: the same bits
 *     everywhere);
 *   - pass 2 from the same registers: dx (NORM_LN: bulk_ex's four-operation
 *     form where rstd is in [2^-32, 2^32], else bulk's; NORM_RMS: bulk_ex's
 *     fmaf(-x, c, rstd (w dy)), c = D / N rstd^3), one 16-byte st.global a
 *     vector;
 *   - w's two vectors widened to f32 once, in registers for the launch;
 *   - rstd (and mean): lane l of every warp holds row kb + l's, 32 rows a
 *     window, the next window loaded 32 rows ahead; a row takes its values
 *     by shuffles.
 * x, dy and w are widened one instruction an element (norm_elx,
 * norm_w_widen_x: the same values as sl_dt's loads).
 * No __syncthreads and no cluster barrier in the row loop. Every
 * SL_NORM_DW_ROWS rows of a team each thread writes its columns of the
 * round's dw (and db) partial rows (team + j nteams), zeros for the rounds
 * the team had no rows in; rmsnorm_bwd's dw.cu finish adds them in fp64 in
 * order (deterministic, no atomics).
 * sm_90 only (clusters, st.async): callers guard with __CUDA_ARCH__ >= 900.
 */
#ifndef SL_NORM_BWD_RCL_CUH
#define SL_NORM_BWD_RCL_CUH

#include "bulk.cuh" /* bulk_code_ok */
#include "cluster_x1.cuh"
#include "norm_bwd.cuh"
#include "row.cuh" /* sl_cuda_row_clusters */

#include <cooperative_groups.h>

enum {
    RCL_T = 256, /* threads a block */
    RCL_V = 2, /* 16-byte vectors of x (and of dy) a thread a row */
    RCL_MAXV = RCL_T * RCL_V, /* vectors a block's chunk: 512 (8 KiB of 16-bit x) */
    RCL_NW = RCL_T / 32
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define RCL_MINB 2
#else
#define RCL_MINB 1
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/* The kernel's body, for a __global__ __launch_bounds__(RCL_T, RCL_MINB)
 * wrapper of each op: DT bf16 or f16 with w in DT, MODE NORM_LN or
 * NORM_RMS, NR rows in the register ring (2-4). */
template <int DT, int MODE, int NR>
static __device__ __forceinline__ void norm_bwd_rcl(const norm_bwd_geo &g)
{
    namespace cg = cooperative_groups;
    static_assert(NR >= 2 && NR <= 4, "the ring: the row worked on and one to three in flight");
    typedef typename sl_dt<DT>::raw R;
    const int VE = NORM_VE(DT), V = RCL_V, NW = RCL_NW;
    const bool LN = MODE == NORM_LN;
    const int NA = LN ? 2 : 1; /* accumulators: dw (and db) */
    /* the exchange: two slot sets (rows k & 1) of NW x C <= 64 slots (NORM_LN:
     * float2 (sum w dy xh, sum w dy); NORM_RMS: float, sum w dy x, in the
     * first half), each completing its own mbarrier */
    __shared__ __align__(16) float2 xs[2][NW * 8];
    __shared__ __align__(8) uint64_t xbar[2];
    const cg::cluster_group clg = cg::this_cluster();
    const unsigned C = clg.num_blocks(), rank = clg.block_rank();
    const unsigned lane = threadIdx.x & 31u;
    const uint64_t nvv = g.cols / VE;
    const uint32_t cv = (uint32_t)((nvv + C - 1) / C), v0 = rank * cv;
    const uint32_t cnt = v0 < nvv ? min(cv, (uint32_t)(nvv - v0)) : 0u;
    const uint64_t team = blockIdx.x / C, nteams = gridDim.x / C;
    const uint64_t nk = team < g.rows ? (g.rows - 1 - team) / nteams + 1 : 0; /* the team's rows */
    const uint64_t nflush = ((g.rows + nteams - 1) / nteams + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS;
    const uint64_t rowb = g.ld * sizeof(R);
    const float inv_n = 1.0f / (float)g.cols;
    bool ok[V]; /* the thread's vectors present in the chunk */
#pragma unroll
    for (int i = 0; i < V; i++)
        ok[i] = threadIdx.x + (uint32_t)i * RCL_T < cnt;

    if (threadIdx.x == 0)
        for (int q = 0; q < 2; q++)
            x1_arm(&xbar[q], NW, C, LN ? 8 : 4);
    /* the slots no warp writes (NW x C up to 64: C < 8), which the fold reads as zeros */
    for (uint32_t j = threadIdx.x; j < 2 * NW * 8; j += RCL_T)
        if (j % (NW * 8) >= NW * C) {
            if (LN)
                xs[j / (NW * 8)][j % (NW * 8)] = make_float2(0.0f, 0.0f);
            else
                ((float *)xs[j / (NW * 8)])[j % (NW * 8)] = 0.0f;
        }

    /* w: the thread's columns for the launch, widened once */
    float wf[V][VE];
#pragma unroll
    for (int i = 0; i < V; i++) {
        const uint4 u = ok[i] ? __ldg((const uint4 *)g.w + v0 + threadIdx.x + i * RCL_T) : make_uint4(0u, 0u, 0u, 0u);
        norm_w_widen_x<DT, DT>(&u, wf[i]);
    }

    /* rstd (and mean), 32 rows a window: lane l holds the team's row kb + l */
    float rsc = 0.0f, muc = 0.0f, rsn = 0.0f, mun = 0.0f;
    auto stats = [&](uint64_t kb, float &rs, float &mu) {
        const uint64_t q = kb + lane;
        if (q < nk) {
            rs = g.rstd[team + q * nteams];
            if (LN)
                mu = g.mean[team + q * nteams];
        }
    };
    stats(0, rsc, muc);
    stats(32, rsn, mun);

    /* the ring: row k in slot k % NR */
    uint4 bx[NR][V], bd[NR][V];
    auto load = [&](uint4 (&x)[V], uint4 (&d)[V], uint64_t k) {
        if (k < nk) {
            const uint64_t off = (team + k * nteams) * rowb;
            const uint4 *xr = (const uint4 *)((const char *)g.x + off) + v0 + threadIdx.x;
            const uint4 *dr = (const uint4 *)((const char *)g.dy + off) + v0 + threadIdx.x;
#pragma unroll
            for (int i = 0; i < V; i++)
                if (ok[i]) {
                    x[i] = xr[i * RCL_T];
                    d[i] = dr[i * RCL_T];
                }
        }
    };
#pragma unroll
    for (int s = 0; s < NR; s++)
#pragma unroll
        for (int i = 0; i < V; i++) {
            bx[s][i] = make_uint4(0u, 0u, 0u, 0u);
            bd[s][i] = make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
    for (int s = 0; s < NR; s++)
        load(bx[s], bd[s], (uint64_t)s);

    float acc[NA][V][VE]; /* dw (and db) of the thread's columns over the round's rows */
#pragma unroll
    for (int s = 0; s < NA; s++)
#pragma unroll
        for (int i = 0; i < V; i++)
#pragma unroll
            for (int e = 0; e < VE; e++)
                acc[s][i][e] = 0.0f;
    /* the round's partial rows (round j: partial row team + j nteams), then zeros */
    auto flush = [&](uint64_t j) {
#pragma unroll
        for (int s = 0; s < NA; s++) {
            float *part = (s ? g.partb : g.part) + (team + j * nteams) * g.cols + (uint64_t)(v0 + threadIdx.x) * VE;
#pragma unroll
            for (int i = 0; i < V; i++) {
                if (ok[i]) /* 4-byte stores: the workspace need not be on 16 bytes; once a round */
#pragma unroll
                    for (int e = 0; e < VE; e++)
                        part[(uint64_t)i * RCL_T * VE + e] = acc[s][i][e];
#pragma unroll
                for (int e = 0; e < VE; e++)
                    acc[s][i][e] = 0.0f;
            }
        }
    };

    /* every barrier initialised (and the unused slots zeroed) before any
     * st.async of a peer or any arrival (C = 1) */
    if (C > 1) {
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    } else {
        __syncthreads();
    }

    /* Row k from ring slot (x, d): both passes, the round's partial, then
     * row k + NR's loads into the slot. */
    auto row = [&](uint4 (&x)[V], uint4 (&d)[V], uint64_t k) {
        if ((k & 31) == 0 && k > 0) { /* the next window of rstd (and mean), 32 rows ahead */
            rsc = rsn;
            if (LN)
                muc = mun;
            stats(k + 32, rsn, mun);
        }
        const float rs = __shfl_sync(0xffffffffu, rsc, (int)(k & 31));
        const float mu = LN ? __shfl_sync(0xffffffffu, muc, (int)(k & 31)) : 0.0f;
        /* pass 1: the row sums and the dw (db) terms */
        float dd = 0.0f, d1 = 0.0f;
#pragma unroll
        for (int i = 0; i < V; i++)
            if (ok[i])
#pragma unroll
                for (int e = 0; e < VE; e++) {
                    const float xk = norm_elx<DT, true>(x[i], e), dk = norm_elx<DT, true>(d[i], e);
                    if (LN) {
                        const float gk = wf[i][e] * dk, xh = (xk - mu) * rs;
                        d1 += gk;
                        dd = fmaf(gk, xh, dd);
                        acc[0][i][e] = fmaf(dk, xh, acc[0][i][e]);
                        acc[NA - 1][i][e] += dk;
                    } else { /* bulk_ex's terms: D = sum (w dy) x, dw += (dy rstd) x */
                        dd = fmaf(wf[i][e] * dk, xk, dd);
                        acc[0][i][e] = fmaf(dk * rs, xk, acc[0][i][e]);
                    }
                }
#pragma unroll
        for (int m = 16; m > 0; m >>= 1) {
            dd += __shfl_xor_sync(0xffffffffu, dd, m);
            if (LN)
                d1 += __shfl_xor_sync(0xffffffffu, d1, m);
        }
        const unsigned set = (unsigned)(k & 1);
        if (LN) {
            float v[2] = {dd, d1};
            x1_send<2, NW>(v, (float *)xs[set], &xbar[set], C, rank, false);
        } else {
            float v[1] = {dd};
            x1_send<1, NW>(v, (float *)xs[set], &xbar[set], C, rank, false);
        }
        mbar_wait(&xbar[set], (uint32_t)(k >> 1) & 1u);
        if (threadIdx.x == 0) /* this barrier's next phase is row k + 2's */
            x1_rearm(&xbar[set], NW, C, LN ? 8 : 4);
        /* the fold: lane l takes slots l and l + 32 in order (the unused ones hold zeros) */
        float2 t;
        if (LN) {
            t = xs[set][lane];
            const float2 t2 = xs[set][lane + 32];
            t.x += t2.x;
            t.y += t2.y;
        } else {
            const float *xr = (const float *)xs[set];
            t = make_float2(xr[lane] + xr[lane + 32], 0.0f);
        }
#pragma unroll
        for (int m = 16; m > 0; m >>= 1) {
            t.x += __shfl_xor_sync(0xffffffffu, t.x, m);
            if (LN)
                t.y += __shfl_xor_sync(0xffffffffu, t.y, m);
        }
        if (LN) {
            const float c = t.x * inv_n, c1 = t.y * inv_n;
            /* pass 2: dx = fmaf(x - mean, a2, fmaf(w dy, rstd, b1)) (bulk_ex's F4
             * form) where 2^-32 <= rstd <= 2^32, else bulk's form */
            const float a2 = -(c * rs) * rs, b1 = -(c1 * rs);
            uint4 *dx0 = (uint4 *)((char *)g.dx + (team + k * nteams) * rowb) + v0 + threadIdx.x;
            const bool f4 = rs >= 0x1p-32f && rs <= 0x1p32f;
#pragma unroll
            for (int i = 0; i < V; i++)
                if (ok[i]) {
                    float f[VE];
                    if (f4) {
#pragma unroll
                        for (int e = 0; e < VE; e++) {
                            const float xk = norm_elx<DT, true>(x[i], e), dk = norm_elx<DT, true>(d[i], e);
                            f[e] = fmaf(xk - mu, a2, fmaf(wf[i][e] * dk, rs, b1));
                        }
                    } else {
#pragma unroll
                        for (int e = 0; e < VE; e++) {
                            const float xk = norm_elx<DT, true>(x[i], e), dk = norm_elx<DT, true>(d[i], e);
                            f[e] = fmaf(-((xk - mu) * rs), c, wf[i][e] * dk - c1) * rs;
                        }
                    }
                    dx0[i * RCL_T] = norm_pack<DT>(f);
                }
        } else {
            /* pass 2: dx = fmaf(-x, c, rstd (w dy)), c = D / N rstd^3 (bulk_ex's) */
            const float c = t.x * inv_n * rs * rs * rs;
            uint4 *dx0 = (uint4 *)((char *)g.dx + (team + k * nteams) * rowb) + v0 + threadIdx.x;
#pragma unroll
            for (int i = 0; i < V; i++)
                if (ok[i]) {
                    float f[VE];
#pragma unroll
                    for (int e = 0; e < VE; e++) {
                        const float xk = norm_elx<DT, true>(x[i], e), dk = norm_elx<DT, true>(d[i], e);
                        f[e] = fmaf(-xk, c, rs * (wf[i][e] * dk));
                    }
                    dx0[i * RCL_T] = norm_pack<DT>(f);
                }
        }
        if (((k + 1) % SL_NORM_DW_ROWS) == 0)
            flush(k / SL_NORM_DW_ROWS);
        load(x, d, k + NR); /* row k + NR into this slot: in flight while rows k + 1 .. k + NR - 1 are worked on */
    };

    for (uint64_t k = 0; k < nk; k += NR) { /* the ring's slots by name: constant register indices */
        row(bx[0], bd[0], k);
        if (k + 1 >= nk)
            break;
        row(bx[1], bd[1], k + 1);
        if constexpr (NR > 2) {
            if (k + 2 >= nk)
                break;
            row(bx[2], bd[2], k + 2);
        }
        if constexpr (NR > 3) {
            if (k + 3 >= nk)
                break;
            row(bx[3], bd[3], k + 3);
        }
    }
    /* the team's last (incomplete) round, then zeros for the rounds it had no rows in */
    for (uint64_t j = nk / SL_NORM_DW_ROWS; j < nflush; j++)
        flush(j);
    /* no cluster barrier at the exit (cluster_x1.cuh): every byte bound for
     * this CTA landed before its last wait passed, nothing is read remotely */
}

#endif /* __CUDA_ARCH__ >= 900 */

/* The host's plan of a regs_cl launch of op (its w buffer iw; fn_bf16 and
 * fn_f16 the op's two kernels; code_cache the rung's): the rung's limits
 * (aligned bf16 / f16 rows with w in their dtype, at most 8 x 512 vectors,
 * sm_90 code on a cluster-capable device; else SL_ERR_UNSUPPORTED with the
 * reason) and its configuration in *c. The caller has run sl_norm_check
 * and returned on an empty launch. */
static inline sl_status norm_bwd_rcl_plan(const sl_args *a, int iw, const char *op, const char *who,
                                          const void *fn_bf16, const void *fn_f16, int *code_cache, norm_bwd_cfg *c)
{
    const sl_dtype wt = norm_wdtype(a, iw);
    if ((a->dtype != SL_BF16 && a->dtype != SL_F16) || wt != a->dtype)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s: %s rows with %s w: only bf16 or f16 rows with w in the rows' dtype "
                       "(two 16-byte vectors a thread, w widened in registers): bulk_ex or regs run it",
                       op, who, sl_dtype_name(a->dtype), sl_dtype_name(wt));
    if (!norm_fwd_aligned(a))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s: a buffer off 16 bytes, or cols %llu (ld %llu) not a multiple of 8 "
                       "elements (whole 16-byte vectors): regs runs it",
                       op, who, (unsigned long long)a->shape.cols,
                       (unsigned long long)(a->shape.ld ? a->shape.ld : a->shape.cols));
    if (!sl_cuda_row_clusters())
        return sl_fail(SL_ERR_UNSUPPORTED, "%s %s: needs sm_90 or newer (clusters, st.async)", op, who);
    const uint64_t nvv = a->shape.cols / 8;
    if (nvv > 8 * (uint64_t)RCL_MAXV)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s: a row of %llu columns is beyond 8 blocks of %d 16-byte vectors (32768 "
                       "16-bit columns): bulk_exw runs it",
                       op, who, (unsigned long long)a->shape.cols, (int)RCL_MAXV);
    const void *fn = a->dtype == SL_BF16 ? fn_bf16 : fn_f16;
    sl_status st;
    if ((st = bulk_code_ok(fn, code_cache)) != SL_OK)
        return st;
    *c = norm_bwd_cfg{};
    c->fn = fn;
    c->block = RCL_T;
    c->cl = (unsigned)((nvv + RCL_MAXV - 1) / RCL_MAXV);
    c->warp = false;
    c->smem = 0;
    return SL_OK;
}

#endif /* SL_NORM_BWD_RCL_CUH */
