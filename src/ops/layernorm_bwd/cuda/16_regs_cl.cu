/*
 * layernorm backward rung 17 (regs_cl): the row held in registers between
 * its two passes, split across a thread-block cluster, rows walked by a
 * persistent grid of clusters with the next rows' loads in flight across
 * the current row's exchange ("the quack-shaped design" that docs/ladder.md
 * left untried after the eighteenth session; designed from that
 * description, no code taken from quack or elsewhere).
 *
 * Source: issue 32 (layernorm_bwd at 16-64 KiB rows: 0.74-0.87 of the copy
 * kernel against a bar of 0.90), docs/ladder.md "The norms' backwards"
 * (eleventh to eighteenth sessions: bulk_ex, bulk_exw, bulk_exw3,
 * bulk_pipe, bulk_q each within +-6% of the one before).
 *
 * Change from bulk_q (15_bulk_q.cu): no shared-memory staging of the row
 * at all. A block of 256 threads owns a fixed chunk of cv <= 512 16-byte
 * vectors of every row (two vectors a thread, the same columns for the
 * whole launch), C = ceil(vectors / 512) blocks (1-8, not only powers of
 * two: 24576 bf16 columns take C = 6 of 512, bulk_q's 8 of 384) form a
 * cluster, and the cluster walks rows team, team + nteams, ... Each thread
 *   - keeps NR = 3 rows of its x and dy vectors in registers, a ring: row
 *     k is worked on while rows k + 1 and k + 2 are loads in flight (plain
 *     16-byte ld.global, predicated, issued right after row k - 1's dx);
 *   - pass 1 from its registers: sum w dy and sum w dy xh (16 terms in
 *     order), dw += dy xh and db += dy in registers (32 floats), the warp's
 *     butterfly, then the warp's two sums st.async to slot rank x 8 + warp
 *     of every CTA of the cluster (common/cluster_x1.cuh, bulk_ex's
 *     exchange: two slot sets and mbarriers alternating by row, one wait,
 *     a fold of the 8 C slots in index order: the same bits everywhere);
 *   - pass 2 from the same registers: dx in bulk_ex's four-operation form
 *     (its fallback form where rstd is outside [2^-32, 2^32]), one 16-byte
 *     st.global a vector;
 *   - w's two vectors widened to f32 once, in registers for the launch;
 *   - rstd and mean: lane l of every warp holds row kb + l's, 32 rows a
 *     window, the next window loaded 32 rows ahead; a row takes its pair by
 *     two shuffles (a per-lane address, so ptxas cannot make the load
 *     uniform and wait on it at the row's start, the eleventh session's
 *     R2UR stall).
 * No __syncthreads and no cluster barrier in the row loop: a warp waits
 * only for its own loads and for the cluster's 8 C warp sums of the row.
 * Every SL_NORM_DW_ROWS rows of a team each thread writes its columns of
 * the round's dw and db partial rows (team + j nteams), zeros for the
 * rounds the team had no rows in, and the deterministic fp64 finish of
 * the other rungs adds them (rmsnorm_bwd's dw.cu): no atomics.
 *
 * Floor (bytes over bandwidth; "copy" is the copy kernel's ~4.10 TB/s on
 * the H200, docs/ladder.md's 131 us for 2 M N x 2 bytes at 8192 x 16384):
 *   the op moves 3 M N x 2 bytes at bf16 (x and dy read, dx written) plus
 *   the partials (2 P N x 4 bytes written and read again by the finish):
 *   4096 x 32768: 805 MB -> 196 us (C = 8, ~33 teams: P = 33, +17 MB, 2.1%)
 *   8192 x 24576: 1208 MB -> 295 us (C = 6, ~43 teams: P = 43, +17 MB, 1.4%)
 *   8192 x 16384: 805 MB -> 196 us (C = 4, ~66 teams: P = 66, +17 MB, 2.1%)
 *   with the finish's launch (~3 us) the best this design can show is
 *   ~0.96-0.97 of the copy.
 * Registers (__launch_bounds__(256, 2): at most 128 a thread, two blocks
 *   an SM): the ring 3 x 2 x (x, dy) x 4 = 48, dw and db 32, w as f32 16,
 *   the rstd/mean windows 4, the rest (addresses, row counters, sums)
 *   ~25: ~125. ptxas -v (sm_90, nvcc 13.0) must show no spills: see the
 *   commit message for its figures (bf16 and f16 instantiations).
 * Bytes in flight a SM (Little's law; the H200 needs ~40-50 KiB a SM at
 *   ~4 TB/s over ~1.2-1.5 us loaded latency): two rows ahead of the one
 *   worked on, 2 x (16 + 16) bytes x 2 vectors = 128 bytes a thread, 512
 *   threads an SM: 64 KiB requested ahead, at most; right after row k + 1
 *   lands, 32 KiB (row k + 2's). bulk_q held 4 blocks x 2 stages of 16 KiB
 *   in flight (128 KiB of stage capacity, one to two rows in flight a
 *   block), so the design does not win by more bytes in flight; it wins,
 *   if it wins, by what a row costs besides its bytes: no shared-memory
 *   round trip of x and dy (bulk_q: the bulk copy writes 8 KiB x 2 a
 *   block and row into shared memory, both passes read them back: 24
 *   bytes of shared-memory traffic an element), no end-of-row barrier, no
 *   stage refill waiting for the slowest warp, one widening of w a launch.
 * Prediction (written before any GPU run; bf16, fraction of the copy,
 *   same process, event timing; bulk_q's H200 figures from the eighteenth
 *   session, docs/ladder.md):
 *   4096 x 32768: bulk_q 0.742 -> regs_cl 0.84-0.92 (1.13-1.24x bulk_q)
 *   8192 x 24576: bulk_q 0.793 -> regs_cl 0.85-0.92 (1.07-1.16x)
 *   8192 x 16384: bulk_q ~0.78-0.80 -> regs_cl 0.85-0.92 (1.07-1.16x)
 *   The spread is what no run has settled: every rung before this one was
 *   predicted to gain 5-10% and gained 0-5%, and quack's own rmsnorm
 *   backward (this shape of design) ran only 0.749 of the copy at 8192 x
 *   65536 on an H100 (docs/ladder.md, third session). If regs_cl lands at
 *   bulk_q's figures, the limit is not the staging nor the barriers but
 *   the cluster-wide exchange itself (every CTA of a cluster waits for
 *   the slowest a row), and C = 1 rows (4096 columns) would be the check.
 * Risks only the GPU shows: a wrong exchange phase (a hang: the ctest
 *   timeout, or a wrong sum: the tests' fp64 check and their second run
 *   for the same bits); ptxas moving the ring's loads next to their use
 *   (the SASS of the committed build has each row's LDG.E.128 ahead of the
 *   previous row's exchange: checked with cuobjdump -sass, see the commit).
 * Numerics: as bulk_ex / bulk_q (f32 throughout; a thread's 16 terms in
 *   order, a warp's butterfly, the fold of 8 C warp sums in index order
 *   and a butterfly; dw and db at most 256 rows in order a partial, no
 *   warp adds; the same tolerance, layernorm_bwd.c). dx, dw and db may
 *   differ from bulk_q's in the last bits (another tree for the row sums),
 *   never from run to run.
 * Limits: aligned launches (norm_fwd_aligned: every buffer on 16 bytes,
 *   cols and ld whole vectors), bf16 or f16 rows with w in the rows'
 *   dtype, rows of at most 8 x 512 vectors (32768 columns), sm_90 code on
 *   a cluster-capable device; else SL_ERR_UNSUPPORTED with the reason.
 *   Not the public function's pick (it waits for a GPU measurement).
 */
#include "layernorm_bwd.h"
#include "bulk.cuh" /* bulk_code_ok */
#include "cluster_x1.cuh"
#include "norm_bwd.cuh"
#include "row.cuh" /* sl_cuda_row_clusters */

#include <cooperative_groups.h>

enum {
    RCL_T = 256, /* threads a block */
    RCL_V = 2, /* 16-byte vectors of x (and of dy) a thread a row */
    RCL_MAXV = RCL_T * RCL_V, /* vectors a block's chunk: 512 (8 KiB of 16-bit x) */
    RCL_NR = 3, /* rows of x and dy in registers: the current one and two in flight */
    RCL_NW = RCL_T / 32
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define RCL_MINB 2
#else
#define RCL_MINB 1
#endif

template <int DT>
static __global__ void __launch_bounds__(RCL_T, RCL_MINB) ln_bwd_regs_cl(norm_bwd_geo g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    typedef typename sl_dt<DT>::raw R;
    const int VE = NORM_VE(DT), V = RCL_V, NR = RCL_NR, NW = RCL_NW;
    /* the exchange: two slot sets (rows k & 1) of NW x C <= 64 float2 (sum
     * w dy xh, sum w dy), each completing its own mbarrier */
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
            x1_arm(&xbar[q], NW, C, 8);
    /* the slots no warp writes (NW x C up to 64 float2: C < 8), which the fold reads as zeros */
    for (uint32_t j = threadIdx.x; j < 2 * NW * 8; j += RCL_T)
        if (j % (NW * 8) >= NW * C)
            xs[j / (NW * 8)][j % (NW * 8)] = make_float2(0.0f, 0.0f);

    /* w: the thread's columns for the launch, widened once */
    float wf[V][VE];
#pragma unroll
    for (int i = 0; i < V; i++) {
        const uint4 u = ok[i] ? __ldg((const uint4 *)g.w + v0 + threadIdx.x + i * RCL_T) : make_uint4(0u, 0u, 0u, 0u);
        norm_w_widen_x<DT, DT>(&u, wf[i]);
    }

    /* rstd and mean, 32 rows a window: lane l holds the team's row kb + l */
    float rsc = 0.0f, muc = 0.0f, rsn = 0.0f, mun = 0.0f;
    auto stats = [&](uint64_t kb, float &rs, float &mu) {
        const uint64_t q = kb + lane;
        if (q < nk) {
            rs = g.rstd[team + q * nteams];
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

    float acc[2][V][VE]; /* dw, db of the thread's columns over the round's rows */
#pragma unroll
    for (int s = 0; s < 2; s++)
#pragma unroll
        for (int i = 0; i < V; i++)
#pragma unroll
            for (int e = 0; e < VE; e++)
                acc[s][i][e] = 0.0f;
    /* the round's partial rows (round j: partial row team + j nteams), then zeros */
    auto flush = [&](uint64_t j) {
#pragma unroll
        for (int s = 0; s < 2; s++) {
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
        if ((k & 31) == 0 && k > 0) { /* the next window of rstd and mean, 32 rows ahead */
            rsc = rsn;
            muc = mun;
            stats(k + 32, rsn, mun);
        }
        const float rs = __shfl_sync(0xffffffffu, rsc, (int)(k & 31));
        const float mu = __shfl_sync(0xffffffffu, muc, (int)(k & 31));
        /* pass 1: the row sums and the dw, db terms */
        float dd = 0.0f, d1 = 0.0f;
#pragma unroll
        for (int i = 0; i < V; i++)
            if (ok[i])
#pragma unroll
                for (int e = 0; e < VE; e++) {
                    const float xk = norm_elx<DT, true>(x[i], e), dk = norm_elx<DT, true>(d[i], e);
                    const float gk = wf[i][e] * dk, xh = (xk - mu) * rs;
                    d1 += gk;
                    dd = fmaf(gk, xh, dd);
                    acc[0][i][e] = fmaf(dk, xh, acc[0][i][e]);
                    acc[1][i][e] += dk;
                }
#pragma unroll
        for (int m = 16; m > 0; m >>= 1) {
            dd += __shfl_xor_sync(0xffffffffu, dd, m);
            d1 += __shfl_xor_sync(0xffffffffu, d1, m);
        }
        const unsigned set = (unsigned)(k & 1);
        {
            float v[2] = {dd, d1};
            x1_send<2, NW>(v, (float *)xs[set], &xbar[set], C, rank, false);
        }
        mbar_wait(&xbar[set], (uint32_t)(k >> 1) & 1u);
        if (threadIdx.x == 0) /* this barrier's next phase is row k + 2's */
            x1_rearm(&xbar[set], NW, C, 8);
        /* the fold: lane l takes slots l and l + 32 in order (the unused ones hold zeros) */
        float2 t = xs[set][lane];
        const float2 t2 = xs[set][lane + 32];
        t.x += t2.x;
        t.y += t2.y;
#pragma unroll
        for (int m = 16; m > 0; m >>= 1) {
            t.x += __shfl_xor_sync(0xffffffffu, t.x, m);
            t.y += __shfl_xor_sync(0xffffffffu, t.y, m);
        }
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
        if (((k + 1) % SL_NORM_DW_ROWS) == 0)
            flush(k / SL_NORM_DW_ROWS);
        load(x, d, k + NR); /* row k + NR into this slot: in flight while rows k + 1, k + 2 are worked on */
    };

    for (uint64_t k = 0; k < nk; k += NR) {
        row(bx[0], bd[0], k);
        if (k + 1 >= nk)
            break;
        row(bx[1], bd[1], k + 1);
        if (k + 2 >= nk)
            break;
        row(bx[2], bd[2], k + 2);
    }
    /* the team's last (incomplete) round, then zeros for the rounds it had no rows in */
    for (uint64_t j = nk / SL_NORM_DW_ROWS; j < nflush; j++)
        flush(j);
    /* no cluster barrier at the exit (cluster_x1.cuh): every byte bound for
     * this CTA landed before its last wait passed, nothing is read remotely */
#else
    (void)g;
    __trap(); /* the launcher runs this kernel only from sm_90 code */
#endif
}

extern "C" sl_status sl_cuda_layernorm_bwd_regs_cl(const sl_args *a)
{
    static const char *who = "regs_cl";
    static int code_cache[SL_MAX_DEVICES];
    sl_status st = sl_norm_check(a, SL_LNB_W, "layernorm_bwd", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    const sl_dtype wt = norm_wdtype(a, SL_LNB_W);
    if ((a->dtype != SL_BF16 && a->dtype != SL_F16) || wt != a->dtype)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "layernorm_bwd %s: %s rows with %s w: only bf16 or f16 rows with w in the rows' dtype "
                       "(two 16-byte vectors a thread, w widened in registers): bulk_ex or regs run it",
                       who, sl_dtype_name(a->dtype), sl_dtype_name(wt));
    if (!norm_fwd_aligned(a))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "layernorm_bwd %s: a buffer off 16 bytes, or cols %llu (ld %llu) not a multiple of 8 "
                       "elements (whole 16-byte vectors): regs runs it",
                       who, (unsigned long long)a->shape.cols,
                       (unsigned long long)(a->shape.ld ? a->shape.ld : a->shape.cols));
    if (!sl_cuda_row_clusters())
        return sl_fail(SL_ERR_UNSUPPORTED, "layernorm_bwd %s: needs sm_90 or newer (clusters, st.async)", who);
    const uint64_t nvv = a->shape.cols / 8;
    if (nvv > 8 * (uint64_t)RCL_MAXV)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "layernorm_bwd %s: a row of %llu columns is beyond 8 blocks of %d 16-byte vectors (32768 "
                       "16-bit columns): bulk_exw runs it",
                       who, (unsigned long long)a->shape.cols, (int)RCL_MAXV);
    const void *fn = a->dtype == SL_BF16 ? (const void *)ln_bwd_regs_cl<SL_BF16> : (const void *)ln_bwd_regs_cl<SL_F16>;
    if ((st = bulk_code_ok(fn, code_cache)) != SL_OK)
        return st;
    norm_bwd_cfg c = {};
    c.fn = fn;
    c.block = RCL_T;
    c.cl = (unsigned)((nvv + RCL_MAXV - 1) / RCL_MAXV);
    c.warp = false;
    c.smem = 0;
    const uint64_t rows = a->shape.rows, cols = a->shape.cols, Pm = sl_norm_dw_partials(rows, cols);
    const norm_bwd_grid gr = norm_bwd_grid_of(&c, rows, cols);
    if (a->workspace_bytes < sl_layernorm_bwd_ws(rows, cols) || gr.P > Pm)
        return sl_fail(SL_ERR_INVALID_ARG, "layernorm_bwd %s: workspace of %zu bytes for %llu partials of %llu", who,
                       a->workspace_bytes, (unsigned long long)gr.P, (unsigned long long)cols);
    norm_bwd_geo g = {a->buf[SL_LNB_X], a->buf[SL_LNB_DY], a->buf[SL_LNB_W], (const float *)a->buf[SL_LNB_MEAN],
                      (const float *)a->buf[SL_LNB_RSTD], a->buf[SL_LNB_DX], (float *)a->workspace,
                      (float *)a->workspace + Pm * cols, rows, cols, a->shape.ld ? a->shape.ld : cols, 0};
    if ((st = norm_bwd_launch(&c, &gr, &g, a->stream)) != SL_OK)
        return st;
    return sl_cuda_norm_dwdb_finish(g.part, g.partb, gr.P, cols, a->buf[SL_LNB_DW], a->buf[SL_LNB_DB], wt,
                                    a->stream);
}
