/*
 * norm_bwd_bulk.cuh - the bulk kernel of the norms' backwards (issue 32,
 * seventh session: rmsnorm_bwd's and layernorm_bwd's 05_bulk.cu), one
 * template for both (MODE NORM_RMS, NORM_LN), the per-row numerics of
 * norm_bwd_regs (norm_bwd.cuh) with the row in shared memory:
 *
 * - A row of nvv 16-byte vectors is cut into C = 1, 2, 4 or 8 chunks of
 *   cv = ceil(nvv / C) vectors (softmax_bwd's sl_cuda_row_chunks), one
 *   block of NB_BLOCK threads a chunk, the C blocks of a team one thread
 *   block cluster. A team owns rows team, team + nteams, ... (persistent:
 *   the grid is what the GPU holds at once, norm_bwd_grid_of), so every
 *   block owns the same columns for the whole launch.
 * - Thread 0 loads the block's chunk of x and dy (cp.async.bulk, pieces of
 *   NB_PIECE vectors) into one of two stages, each completing on its own
 *   mbarrier: while the block works on its k-th row, rows k + 1 (and, once
 *   row k is done, k + 2) are in flight. w's chunk is loaded once.
 * - Pass 1 from shared memory: the row sums (NORM_RMS: sum w dy x; NORM_LN:
 *   sum w dy and sum w dy xh) and the dw (db) terms, added into registers
 *   (VPT x VE columns a thread, the same columns every row). The block's
 *   warps' sums through shared memory, then, C > 1, the cluster's blocks'
 *   through distributed shared memory: thread 0 sends the block's sums into
 *   every block's slot for its rank with st.async, completing on that
 *   block's mbarrier (no cluster barrier a row: barrier.cluster.arrive's
 *   release form waits for the block's outstanding dx stores, MEMBAR.ALL.GPU
 *   in the SASS). Every sum is a fixed butterfly over rank-ordered slots
 *   (commutative additions: the same bits in every thread and block).
 * - Pass 2 from shared memory: dx, one 16-byte st.global a vector.
 * - Every SL_NORM_DW_ROWS rows of the team (a round) each block writes its
 *   columns of the round's partial row pr0 + j x nteams (zeros where the
 *   team had no rows left), as norm_bwd_regs's block and cluster teams: the
 *   same partial count (norm_bwd_grid_of), workspace and fp64 finish.
 *
 * Aligned launches only (norm_fwd_aligned: the caller checks), sm_90 only
 * (the body is empty before; the launchers check the device and the code).
 */
#ifndef SL_NORM_BWD_BULK_CUH
#define SL_NORM_BWD_BULK_CUH

#include "bulk.cuh" /* bulk_code_ok, bulk_copy.cuh */
#include "norm_bwd.cuh"
#include "row.cuh" /* sl_cuda_row_chunks, sl_cuda_row_clusters (defined in softmax_bwd's 03_regs.cu) */

#include <cooperative_groups.h>

enum {
    NB_BLOCK = 512,
    NB_MAXV = 1024, /* vectors of x (and of dy) a chunk: 16 KiB, 2 vectors a thread */
    NB_MAXV_F32 = 2048, /* f32 rows past 8 x 1024 vectors (32768 columns): 4 vectors a thread */
    NB_PIECE = 1024 /* vectors a bulk copy: 16 KiB */
};

/* Two 512-thread blocks an SM on sm_90 (64 registers a thread); the other
 * architectures this file is compiled for get an empty body and no bound. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define NB_MINB 2
#else
#define NB_MINB 1
#endif

/* Dynamic shared memory a block for chunks of cv vectors: two stages of x
 * and dy, then w's chunk in its storage (WB = 2 vectors of f32 w a vector
 * of 16-bit x). */
static inline size_t norm_bwd_bulk_smem(uint32_t cv, size_t es, size_t ws)
{
    return (size_t)cv * 16 * (4 + ws / es);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* The sum of v over the lanes of a warp (or of its first 16 / 8 lanes,
 * the others holding 0): a butterfly, the same bits in every lane. */
static __device__ __forceinline__ float2 nb_warp_sum(float2 v, int from)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        if (m < from) {
            v.x += __shfl_xor_sync(0xffffffffu, v.x, m);
            v.y += __shfl_xor_sync(0xffffffffu, v.y, m);
        }
    return v;
}

/* v into the float2 at local shared address slot of cluster block q,
 * completing 8 bytes of the transaction on q's mbarrier at local address
 * bar (st.async: no fence and no cluster barrier, whose .release form
 * waits for the block's outstanding global stores, MEMBAR.ALL.GPU in the
 * SASS, i.e. the previous row's dx). */
static __device__ __forceinline__ void nb_push(float2 *slot, float2 v, uint64_t *bar, unsigned q)
{
    uint32_t rs, rb;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rs) : "r"(smem_u32(slot)), "r"(q));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rb) : "r"(smem_u32(bar)), "r"(q));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(rs),
                 "f"(v.x), "f"(v.y), "r"(rb)
                 : "memory");
}

static __device__ __forceinline__ void nb_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
#endif

template <int DT, int WT, int VPT, int MODE>
static __global__ void __launch_bounds__(NB_BLOCK, NB_MINB) norm_bwd_bulk(norm_bwd_geo g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    typedef typename sl_dt<DT>::raw R;
    typedef typename sl_dt<WT>::raw WR;
    const int VE = NORM_VE(DT), WB = sizeof(WR) / sizeof(R);
    /* x, dy and w widened one instruction an element (norm_elx, norm_w_widen_x;
     * the same values): layernorm only. H200, bf16, fraction of the copy,
     * one round (bench/results/h200-ab-norms-2026-11-27b.md): layernorm_bwd
     * 0.733 -> 0.756 at 8192 x 16384 and 0.749 -> 0.790 at 8192 x 65536, but
     * rmsnorm_bwd 0.859 -> 0.824 and 0.912 -> 0.892, so rmsnorm keeps the
     * widening it had. */
    const bool NB_FX = MODE == NORM_LN;
    const int NA = MODE == NORM_LN ? 2 : 1;
    extern __shared__ __align__(128) uint4 sm[]; /* stage s: x [2 s cv, 2 s cv + cv), dy after; w at 4 cv */
    __shared__ float2 red[NB_BLOCK / 32];
    __shared__ float2 xs[2][8]; /* the cluster's blocks' sums of even and odd rows, by rank */
    __shared__ __align__(8) uint64_t full[2], wbar, xbar[2];
    const cg::cluster_group clg = cg::this_cluster();
    const unsigned C = clg.num_blocks(), rank = clg.block_rank();
    const unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;
    const uint64_t nvv = g.cols / VE;
    const uint32_t cv = (uint32_t)((nvv + C - 1) / C), v0 = rank * cv;
    const uint32_t cnt = v0 < nvv ? min(cv, (uint32_t)(nvv - v0)) : 0u;
    const uint64_t team = blockIdx.x / C, nteams = gridDim.x / C;
    const uint64_t nflush = ((g.rows + nteams - 1) / nteams + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS;
    const uint64_t rowb = g.ld * sizeof(R), coff = 16 * (uint64_t)v0;
    uint4 *sw = sm + 4 * (size_t)cv;
    const uint32_t bytes = 16u * cnt;

    /* Thread 0: the k-th row of the team into stage k & 1 (its barrier's
     * phase (k >> 1) & 1). */
    auto issue = [&](uint64_t k) {
        const uint64_t r = team + k * nteams;
        uint4 *st = sm + 2 * (size_t)cv * (k & 1);
        uint64_t *bar = &full[k & 1];
        mbar_arrive_expect(bar, 2u * bytes);
        const char *xr = (const char *)g.x + r * rowb + coff, *dr = (const char *)g.dy + r * rowb + coff;
        for (uint32_t p = 0; p < cnt; p += NB_PIECE) {
            const uint32_t b = 16u * min((uint32_t)NB_PIECE, cnt - p);
            bulk_load(st + p, xr + 16 * (uint64_t)p, b, bar);
            bulk_load(st + cv + p, dr + 16 * (uint64_t)p, b, bar);
        }
    };
    if (threadIdx.x == 0) {
        mbar_init(&full[0], 1);
        mbar_init(&full[1], 1);
        mbar_init(&wbar, 1);
        mbar_init(&xbar[0], 1);
        mbar_init(&xbar[1], 1);
        const uint32_t wbytes = bytes * WB;
        mbar_arrive_expect(&wbar, wbytes);
        const char *w0 = (const char *)g.w + (uint64_t)v0 * VE * sizeof(WR);
        for (uint32_t p = 0; p < cnt * WB; p += NB_PIECE) {
            const uint32_t b = 16u * min((uint32_t)NB_PIECE, cnt * WB - p);
            bulk_load(sw + p, w0 + 16 * (uint64_t)p, b, &wbar);
        }
        if (cnt > 0) { /* a block past the row's vectors (nvv < C cv) loads nothing: its barriers never wait */
            issue(0);
            if (team + nteams < g.rows)
                issue(1);
        }
    }
    if (C > 1)
        nb_cluster_sync(); /* the barriers are initialised before anyone (a peer's st.async too) uses them */
    else
        __syncthreads();
    if (cnt > 0)
        mbar_wait(&wbar, 0);

    float acc[NA][VPT][VE];
#pragma unroll
    for (int s = 0; s < NA; s++)
#pragma unroll
        for (int i = 0; i < VPT; i++)
#pragma unroll
            for (int e = 0; e < VE; e++)
                acc[s][i][e] = 0.0f;

    uint64_t k = 0; /* the team's rows so far */
    for (uint64_t j = 0; j < nflush; j++) {
        for (const uint64_t k1 = (j + 1) * SL_NORM_DW_ROWS; k < k1 && team + k * nteams < g.rows; k++) {
            const uint64_t r = team + k * nteams;
            const uint4 *sx = sm + 2 * (size_t)cv * (k & 1), *sd = sx + cv;
            const float rs = g.rstd[r], mu = MODE == NORM_LN ? g.mean[r] : 0.0f;
            if (cnt > 0)
                mbar_wait(&full[k & 1], (uint32_t)(k >> 1) & 1u);
            /* pass 1: the row sums (VPT x VE <= 16 terms a thread, in order) and the dw (db) terms */
            float d = 0.0f, d1 = 0.0f;
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint32_t vi = threadIdx.x + i * NB_BLOCK;
                if (vi >= cnt)
                    break;
                const uint4 xv = sx[vi], dv = sd[vi];
                uint4 wu[WB];
#pragma unroll
                for (int h = 0; h < WB; h++)
                    wu[h] = sw[vi * WB + h];
                float wf[VE];
                norm_w_widen_fx<DT, WT, NB_FX>(wu, wf);
#pragma unroll
                for (int e = 0; e < VE; e++) {
                    const float xk = norm_elx<DT, NB_FX>(xv, e), dk = norm_elx<DT, NB_FX>(dv, e);
                    if (MODE == NORM_LN) {
                        const float gk = wf[e] * dk, xh = (xk - mu) * rs;
                        d1 += gk;
                        d = fmaf(gk, xh, d);
                        acc[0][i][e] = fmaf(dk, xh, acc[0][i][e]);
                        acc[NA - 1][i][e] += dk;
                    } else {
                        d = fmaf(wf[e] * dk, xk, d);
                        acc[0][i][e] = fmaf(dk * rs, xk, acc[0][i][e]);
                    }
                }
            }
            /* the block's sums, then the cluster's */
            float2 s = nb_warp_sum(make_float2(d, d1), 32);
            if (lane == 0)
                red[wid] = s;
            __syncthreads();
            s = nb_warp_sum(lane < NB_BLOCK / 32 ? red[lane] : make_float2(0.0f, 0.0f), NB_BLOCK / 32);
            if (C > 1) {
                /* Thread 0 sends the block's sums to slot rank of every block of the cluster (itself
                 * too) and expects C of them. Slots and barriers alternate by row: a peer sends row
                 * k + 2's sums only after it has this block's row k + 1 ones, which this block sends
                 * after it has read row k's. */
                if (threadIdx.x == 0) {
                    mbar_arrive_expect(&xbar[k & 1], 8u * C);
                    for (unsigned q = 0; q < C; q++)
                        nb_push(&xs[k & 1][rank], s, &xbar[k & 1], q);
                }
                mbar_wait(&xbar[k & 1], (uint32_t)(k >> 1) & 1u);
                s = nb_warp_sum(lane < C ? xs[k & 1][lane] : make_float2(0.0f, 0.0f), 8);
            }
            s.x = __shfl_sync(0xffffffffu, s.x, 0);
            s.y = __shfl_sync(0xffffffffu, s.y, 0);
            float c, c1 = 0.0f;
            if (MODE == NORM_LN) {
                c1 = s.y / (float)g.cols;
                c = s.x / (float)g.cols;
            } else {
                c = s.x / (float)g.cols * rs * rs * rs;
            }
            /* pass 2: dx */
            uint4 *dx0 = (uint4 *)((char *)g.dx + r * rowb + coff);
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint32_t vi = threadIdx.x + i * NB_BLOCK;
                if (vi >= cnt)
                    break;
                const uint4 xv = sx[vi], dv = sd[vi];
                uint4 wu[WB];
#pragma unroll
                for (int h = 0; h < WB; h++)
                    wu[h] = sw[vi * WB + h];
                float wf[VE], f[VE];
                norm_w_widen_fx<DT, WT, NB_FX>(wu, wf);
#pragma unroll
                for (int e = 0; e < VE; e++) {
                    const float xk = norm_elx<DT, NB_FX>(xv, e), dk = norm_elx<DT, NB_FX>(dv, e);
                    if (MODE == NORM_LN)
                        f[e] = fmaf(-((xk - mu) * rs), c, wf[e] * dk - c1) * rs;
                    else
                        f[e] = fmaf(-xk, c, rs * (wf[e] * dk));
                }
                dx0[vi] = norm_pack<DT>(f);
            }
            __syncthreads(); /* every thread is done with the stage (and with red) */
            if (threadIdx.x == 0 && cnt > 0 && team + (k + 2) * nteams < g.rows) {
                fence_proxy_async(); /* our reads of the stage, before the engine overwrites it */
                issue(k + 2);
            }
        }
        /* the round's partial row: this block's columns (zeros where the team had no rows in it) */
        const uint64_t pr = team + j * nteams;
#pragma unroll
        for (int s = 0; s < NA; s++) {
            float *part = (s ? g.partb : g.part) + pr * g.cols + (uint64_t)v0 * VE;
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint32_t vi = threadIdx.x + i * NB_BLOCK;
                if (vi < cnt) /* 4-byte stores: the workspace need not be on 16 bytes; once every 256 rows */
#pragma unroll
                    for (int e = 0; e < VE; e++)
                        part[(uint64_t)vi * VE + e] = acc[s][i][e];
#pragma unroll
                for (int e = 0; e < VE; e++)
                    acc[s][i][e] = 0.0f;
            }
        }
    }
    if (C > 1)
        nb_cluster_sync(); /* no block exits while its st.async to a peer may be in flight */
#else
    /* the launchers run this kernel only on sm_90 and later, from sm_90 code */
    (void)g;
    __trap();
#endif
}

/* The bulk kernel for (DT, WT) at VPT vectors a thread: 2, or 4 for f32
 * rows past 8 x NB_MAXV vectors. */
template <int MODE> struct norm_bwd_bulk_pick {
    template <int DT, int WT> struct at {
        static bool run(uint32_t cv, const void **fn)
        {
            if (cv <= NB_MAXV)
                *fn = (const void *)norm_bwd_bulk<DT, WT, 2, MODE>;
            else if (DT == SL_F32 && cv <= NB_MAXV_F32)
                *fn = (const void *)norm_bwd_bulk<SL_F32, SL_F32, 4, MODE>;
            else
                return false;
            return true;
        }
    };
};

/* The checks and configuration of a bulk launch of op (its weight at
 * buffer iw; a checked by sl_norm_check, rows and cols > 0): aligned
 * (norm_fwd_aligned), sm_90 with sm_90 code loaded, rows of at most 8
 * chunks; else SL_ERR_UNSUPPORTED, saying which. c: the kernel, 512
 * threads, the cluster of C blocks and the shared memory of its chunk
 * (norm_bwd_grid_of and norm_bwd_launch take it as a register kernel's). */
template <int MODE> static sl_status norm_bwd_bulk_plan(const sl_args *a, int iw, const char *op, norm_bwd_cfg *c)
{
    static int code_cache[SL_MAX_DEVICES];
    const size_t es = sl_dtype_size(a->dtype);
    if (!norm_fwd_aligned(a))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s bulk: a buffer off 16 bytes, or cols %llu (ld %llu) not a multiple of %zu elements (the "
                       "bulk copies move whole 16-byte vectors): regs runs it",
                       op, (unsigned long long)a->shape.cols,
                       (unsigned long long)(a->shape.ld ? a->shape.ld : a->shape.cols), 16 / es);
    if (!sl_cuda_row_clusters())
        return sl_fail(SL_ERR_UNSUPPORTED, "%s bulk: needs sm_90 or newer (cp.async.bulk, clusters)", op);
    const sl_dtype wt = norm_wdtype(a, iw);
    const uint64_t nvv = a->shape.cols * es / 16;
    unsigned C = 1;
    uint32_t cv = 0;
    const void *fn = NULL;
    if ((!sl_cuda_row_chunks(nvv, NB_MAXV, 1, &C, &cv) &&
         (a->dtype != SL_F32 || !sl_cuda_row_chunks(nvv, NB_MAXV_F32, 1, &C, &cv))) ||
        !NORM_DISPATCH(a->dtype, wt, norm_bwd_bulk_pick<MODE>::template at, cv, &fn))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s bulk: a row of %llu columns is beyond 8 chunks of %d 16-byte vectors: regs runs it", op,
                       (unsigned long long)a->shape.cols, a->dtype == SL_F32 ? (int)NB_MAXV_F32 : (int)NB_MAXV);
    sl_status st = bulk_code_ok(fn, code_cache);
    if (st != SL_OK)
        return st;
    c->fn = fn;
    c->block = NB_BLOCK;
    c->cl = C;
    c->warp = false;
    c->smem = norm_bwd_bulk_smem(cv, es, sl_dtype_size(wt));
    return SL_OK;
}

#endif /* SL_NORM_BWD_BULK_CUH */
