/*
 * norm_bwd_bulk.cuh - the bulk kernel of the norms' backwards (issue 32,
 * seventh session: rmsnorm_bwd's and layernorm_bwd's 05_bulk.cu), one
 * template for both (MODE NORM_RMS, NORM_LN), the per-row numerics of
 * norm_bwd_regs (norm_bwd.cuh) with the row in shared memory:
 *
 * - A row of nvv 16-byte vectors is cut into C = 1, 2, 4 or 8 chunks of
 *   cv = ceil(nvv / C) vectors (softmax_bwd's sl_cuda_row_chunks), one
 *   block of NB_BLOCK threads a chunk (NB_Q: NB_Q_BLOCK), the C blocks of
 *   a team one thread block cluster. A team owns rows team, team + nteams,
 *   ... (persistent:
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
 *
 * EX = 1 (the bulk_ex rungs, eleventh session, docs/ladder.md "The norms'
 * backwards, eleventh session: the long rows' instructions and waits"):
 * the same staging, rows, partials and numerics of the sums, with
 * - the row sums exchanged one-sided (cluster_x1.cuh): every warp's sums
 *   st.async into slot [rank x NW + warp] of every CTA of the cluster, one
 *   mbarrier wait, each warp folding the NW x C slots in index order; no
 *   __syncthreads between the passes, no second butterfly, no serial push
 *   by thread 0; two slot sets and mbarriers alternating by row;
 * - rstd (and mean) of row k + 2 copied into shared memory by thread 0
 *   (cp.async, 4 bytes) when it issues the row's stage, waited for before
 *   row k + 1's end-of-row barrier: a row starts with a shared load, not a
 *   global load's round trip;
 * - w's chunk widened to f32 once, in shared memory (16-bit w: its raw
 *   chunk lands in the upper half of the f32 region), read as float4 in
 *   both passes instead of widened every row;
 * - 1 / N once a launch (c = sum x 1/N: within an ulp of the division);
 * - NORM_LN's dx in four operations an element where bulk takes five:
 *   dx = fmaf(x - mean, -c2 rstd^2, fmaf(w dy, rstd, -c1 rstd)), the same
 *   terms as rstd (w dy - c1 - xh c2) (no cancellation added: x - mean is
 *   formed first, as in pass 1).
 *
 * EX = 2 (NB_EXW, the bulk_exw rungs, thirteenth session, docs/ladder.md
 * "The norms' backwards, thirteenth session: w off the shared-memory path
 * (bulk_exw)"): bulk_ex less its f32 w in shared memory, which doubled w's
 * shared-memory bytes in both passes (ncu: bulk_ex's MIO stalls). w's
 * chunk lands in shared memory in its storage dtype, as bulk's (80 KiB a
 * block at 16-bit), and each thread takes its VPT vectors of it into
 * registers once, its columns being the same every row:
 * - NORM_RMS: widened to f32, 16 registers (63 in all at 16-bit, under
 *   the bound of 64, no spills);
 * - NORM_LN with 16-bit w: raw, 8 registers, widened at use in both passes
 *   as bulk does (norm_w_widen_fx). Its dw and db already take 32
 *   registers: 16 of f32 w spill in the row loop (ptxas: 32 bytes of spill
 *   stores, LDL / STL a row) or need 80 registers, one block a SM (half the
 *   bytes in flight); 8 of raw w fit (64 in all, no spills). With f32 w
 *   it reads w's raw vectors from shared memory, bulk's bytes.
 * In the rows only x and dy come from shared memory (16-bit: 8 bytes an
 * element over both passes, bulk_ex 16, bulk 12), save NORM_LN's f32 w.
 * Everything else is bulk_ex's; w's values are the same (the widening is
 * exact), so dx, dw and db are bulk_ex's bits.
 *
 * EX = 3 (NB_EXW3, the bulk_exw3 rungs, fifteenth session, docs/ladder.md
 * "The norms' backwards, fifteenth session: a third stage (bulk_exw3)"):
 * bulk_exw with NS = 3 row stages of x and dy where the others have 2. Row
 * k lands in stage k % 3 (its mbarrier's phase (k / 3) & 1) and, after row
 * k's end-of-row barrier, thread 0 refills that stage with row k + 3 (the
 * others: k + 2), so a row is asked two rows before it is used, not one,
 * and a block keeps two rows of x and dy in flight while it works on a
 * third (64 KiB at 16-bit chunks of 16 KiB, 128 KiB a SM, where two stages
 * keep one row, 64 KiB a SM, once the next has landed). rstd (mean) slots:
 * three, by k % 3, row k + 3's asked at the same point. The exchange's
 * slots and barriers still alternate by row (k & 1). Shared memory: w's
 * chunk has no region of its own. It lands in stage 2's buffer (w's chunk
 * is at most 2 cv vectors, a stage's size: 16-bit w, or f32 w beside
 * 16-bit rows), every thread takes its vectors into registers (bulk_exw's
 * w_at: rmsnorm widened to f32, layernorm 16-bit raw), a block barrier,
 * and only then does thread 0 issue row 2 into that stage: 6 cv x 16 bytes
 * a block, 96 KiB at the largest chunk (bulk_exw 80), still two blocks a
 * SM (2 x (96 + 2.2 static + 1 reserved) KiB = 198.4 <= 228). Where w must
 * stay in shared memory (layernorm with f32 w, which bulk_exw reads from
 * shared memory every row) or the chunk is past NB_MAXV vectors (f32 rows
 * over 32768 columns, 4 vectors a thread: three stages of 64 KiB would
 * leave one block a SM), the pick runs the NB_EXW kernel instead: bulk_exw
 * itself, 2 stages (norm_bwd_bulk_stages3 says which). dx, dw and db are
 * bulk_exw's bits (the stages change when a row's bytes arrive, not what
 * is computed).
 *
 * EX = 4 (NB_PIPE, the bulk_pipe rungs, sixteenth session, docs/ladder.md
 * "The norms' backwards, sixteenth session"): bulk_exw3 with the row body
 * in two halves, pass1 (the stage's wait, the sums and the dw / db terms,
 * the sums sent by x1_send) and pass2_row (the wait for the cluster's
 * sums, the fold, dx, the end-of-row barrier and the refill), run as row k
 * + 1's pass1 before row k's pass2_row, so that a warp waits for row k's
 * sums one first pass after sending them. The exchange then needs four
 * slot sets and mbarriers (k & 3; cluster_x1.cuh). The pipelining stops at
 * each round of SL_NORM_DW_ROWS rows (a round's first pass1 follows the
 * previous round's partial), so dx, dw and db are bulk_exw's bits. Where
 * three stages do not apply it runs bulk_exw's kernel, as bulk_exw3 does.
 * Measured on an H200: level with bulk_exw3 (0.98-1.02x) at 16384-65536
 * columns, 0.94-0.97x at 4096; not picked.
 *
 * EX = 5 (NB_Q, the bulk_q rungs, eighteenth session, docs/ladder.md "The
 * norms' backwards, eighteenth session"): bulk_exw3's kernel in blocks of
 * NB_Q_BLOCK = 256 threads, four an SM (__launch_bounds__(256, 4): the
 * same 64 registers), on chunks of up to NB_Q_MAXV = 512 vectors (two a
 * thread), so a row takes twice bulk_exw3's CTAs and an SM holds four
 * blocks at their own points of their rows. Three stages only: rows past 8
 * x 512 vectors (16-bit: 32768 columns; f32: 16384) and layernorm with f32
 * w are refused. The row sums are over 8 x C warps' slots; everything else
 * is bulk_exw3's.
 */
#ifndef SL_NORM_BWD_BULK_CUH
#define SL_NORM_BWD_BULK_CUH

#include "bulk.cuh" /* bulk_code_ok, bulk_copy.cuh */
#include "cluster_x1.cuh"
#include "norm_bwd.cuh"
#include "row.cuh" /* sl_cuda_row_chunks, sl_cuda_row_clusters (defined in softmax_bwd's 03_regs.cu) */

#include <cooperative_groups.h>

/* The kernel's configurations (its EX argument): bulk, bulk_ex (w widened
 * to f32 in shared memory), bulk_exw (bulk_ex with w in registers),
 * bulk_exw3 (bulk_exw with three row stages, w's chunk in the third),
 * bulk_pipe (bulk_exw3 with row k + 1's first pass before row k's wait)
 * and bulk_q (bulk_exw3 in blocks of 256, four an SM). */
enum { NB_BULK = 0, NB_EX = 1, NB_EXW = 2, NB_EXW3 = 3, NB_PIPE = 4, NB_Q = 5 };

enum {
    NB_BLOCK = 512,
    NB_MAXV = 1024, /* vectors of x (and of dy) a chunk: 16 KiB, 2 vectors a thread */
    NB_MAXV_F32 = 2048, /* f32 rows past 8 x 1024 vectors (32768 columns): 4 vectors a thread */
    NB_PIECE = 1024, /* vectors a bulk copy: 16 KiB */
    NB_Q_BLOCK = 256, /* NB_Q: four blocks an SM */
    NB_Q_MAXV = 512 /* NB_Q: vectors of x (and of dy) a chunk: 8 KiB, 2 vectors a thread */
};

/* Threads a block: NB_Q's 256, else 512. */
static constexpr int norm_bwd_bulk_threads(int ex)
{
    return ex == NB_Q ? (int)NB_Q_BLOCK : (int)NB_BLOCK;
}

/* Two 512-thread blocks an SM on sm_90 (64 registers a thread; NB_Q: four
 * of 256, 2 x NB_MINB); the other architectures this file is compiled for
 * get an empty body and no bound. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define NB_MINB 2
#else
#define NB_MINB 1
#endif

/* The configurations with three row stages (w's chunk first in the
 * third), where norm_bwd_bulk_stages3 allows: bulk_exw3, bulk_pipe and
 * bulk_q (which runs only where it allows). */
static constexpr bool norm_bwd_bulk_three(int ex)
{
    return ex == NB_EXW3 || ex == NB_PIPE || ex == NB_Q;
}

/* NB_EXW3, NB_PIPE, NB_Q: whether chunks of cv vectors of (MODE, w of ws bytes) take the
 * three-stage kernel (6 cv x 16 bytes of dynamic shared memory a block, w's
 * chunk in the third stage), else bulk_exw's two-stage one. Three stages
 * need w in registers for the launch (rmsnorm; layernorm with 16-bit w:
 * its f32 w is read from shared memory every row) and chunks of at most
 * NB_MAXV vectors (f32 rows past it take 4 vectors a thread in chunks of up
 * to 32 KiB: three stages of 64 KiB a block would leave one block a SM). */
static constexpr bool norm_bwd_bulk_stages3(int mode, uint32_t cv, size_t ws)
{
    return cv <= NB_MAXV && (mode == NORM_RMS || ws == 2);
}

/* Dynamic shared memory a block for chunks of cv vectors: two stages of x
 * and dy, then w's chunk in its storage (WB = 2 vectors of f32 w a vector
 * of 16-bit x; NB_EX: always f32, ws = 4); stages3 (NB_EXW3 where
 * norm_bwd_bulk_stages3 holds): three stages, w's chunk in the third. */
static inline size_t norm_bwd_bulk_smem(uint32_t cv, size_t es, size_t ws, bool stages3)
{
    return (size_t)cv * 16 * (stages3 ? 6 : 4 + ws / es);
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

/* A compile-time flag as a type (bulk_ex's two forms of dx in one lambda). */
template <bool B> struct nb_bool {
    static constexpr bool value = B;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* w's VE values for vector vi of the chunk: NB_EX, f32 in shared memory (WF
 * float4 a vector); else (bulk, bulk_exw) the raw vectors widened
 * (norm_w_widen_fx). */
template <int DT, int WT, int EX, bool FX>
static __device__ __forceinline__ void nb_w(const uint4 *sw, uint32_t vi, float *wf)
{
    typedef typename sl_dt<DT>::raw R;
    typedef typename sl_dt<WT>::raw WR;
    const int VE = NORM_VE(DT), WB = sizeof(WR) / sizeof(R);
    if (EX == NB_EX) {
        const float4 *s4 = reinterpret_cast<const float4 *>(sw) + (size_t)vi * (VE / 4);
#pragma unroll
        for (int h = 0; h < VE / 4; h++) {
            const float4 t = s4[h];
            wf[4 * h] = t.x;
            wf[4 * h + 1] = t.y;
            wf[4 * h + 2] = t.z;
            wf[4 * h + 3] = t.w;
        }
    } else {
        uint4 wu[WB];
#pragma unroll
        for (int h = 0; h < WB; h++)
            wu[h] = sw[vi * WB + h];
        norm_w_widen_fx<DT, WT, FX>(wu, wf);
    }
}
#endif

template <int DT, int WT, int VPT, int MODE, int EX>
static __global__ void __launch_bounds__(norm_bwd_bulk_threads(EX), EX == NB_Q ? 2 * NB_MINB : NB_MINB)
    norm_bwd_bulk(norm_bwd_geo g)
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
    /* NB_EX: w's vectors of f32 a vector of x (else its raw vectors), and
     * the floats a warp posts (EX) */
    const int WF = EX == NB_EX ? VE / 4 : WB, NX = MODE == NORM_LN ? 2 : 1;
    /* the row stages (NB_EXW3, NB_PIPE: three, w's chunk first landing in
     * the third), the exchange's slot sets and mbarriers (NB_PIPE: four, by
     * k & 3; else two, by k & 1) and w in registers for the launch (NB_EXW,
     * NB_EXW3, NB_PIPE) */
    const bool PIPE = EX == NB_PIPE;
    enum {
        NBT = norm_bwd_bulk_threads(EX),
        NW = NBT / 32,
        NS = norm_bwd_bulk_three(EX) ? 3 : 2,
        NXS = EX == NB_PIPE ? 4 : 2
    };
    const bool EXW = EX == NB_EXW || norm_bwd_bulk_three(EX);
    static_assert(!norm_bwd_bulk_three(EX) || MODE == NORM_RMS || sizeof(WR) == 2,
                  "three stages need w in registers (norm_bwd_bulk_stages3)");
    extern __shared__ __align__(128) uint4 sm[]; /* stage s: x [2 s cv, 2 s cv + cv), dy after; w at 4 cv (NB_EXW3:
                                                  * stage 2's buffer, until w is in registers) */
    __shared__ float2 red[NBT / 32];
    /* the cluster's blocks' sums of the rows k with k % NXS = 0, 1, ..., by
     * rank (EX: every warp's, slot rank x NW + warp, NX floats a slot) */
    __shared__ float2 xs[NXS][EX ? NW * 8 : 8];
    __shared__ __align__(8) uint64_t full[NS], wbar, xbar[NXS];
    __shared__ float rm[NS][2]; /* EX: rstd and mean of the rows in the stages */
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

    /* Row k's stage, k % NS, and its barrier's phase, (k / NS) & 1: NS = 2
     * in the 64-bit forms bulk, bulk_ex and bulk_exw had; NS = 3 in 32 bits
     * (k < 2^32: 2^32 rows of a team, at least 16 bytes each, would pass
     * any GPU's memory). */
    auto stage_of = [&](uint64_t k) -> uint64_t { return NS == 2 ? (k & 1) : (uint64_t)((uint32_t)k % NS); };
    auto phase_of = [&](uint64_t k) -> uint32_t {
        return NS == 2 ? (uint32_t)(k >> 1) & 1u : ((uint32_t)k / NS) & 1u;
    };
    /* Thread 0: the k-th row of the team into stage stage_of(k). */
    auto issue = [&](uint64_t k) {
        const uint64_t r = team + k * nteams;
        uint4 *st = sm + 2 * (size_t)cv * stage_of(k);
        uint64_t *bar = &full[stage_of(k)];
        mbar_arrive_expect(bar, 2u * bytes);
        const char *xr = (const char *)g.x + r * rowb + coff, *dr = (const char *)g.dy + r * rowb + coff;
        for (uint32_t p = 0; p < cnt; p += NB_PIECE) {
            const uint32_t b = 16u * min((uint32_t)NB_PIECE, cnt - p);
            bulk_load(st + p, xr + 16 * (uint64_t)p, b, bar);
            bulk_load(st + cv + p, dr + 16 * (uint64_t)p, b, bar);
        }
    };
    /* EX, thread 0: the k-th row's rstd (and mean) into rm[stage_of(k)] by cp.async,
     * committed and waited for (cp_async_wait_all) before the barrier ahead
     * of the row: a row ahead, where bulk's every warp loads them when the
     * row starts (ptxas moves the uniform value to a uniform register right
     * behind the LDG, so the row's first instructions wait a round trip). */
    auto stats = [&](uint64_t k) {
        const uint64_t r = team + k * nteams;
        cp_async4(&rm[stage_of(k)][0], g.rstd + r);
        if (MODE == NORM_LN)
            cp_async4(&rm[stage_of(k)][1], g.mean + r);
    };
    if (threadIdx.x == 0) {
        for (int q = 0; q < NS; q++)
            mbar_init(&full[q], 1);
        mbar_init(&wbar, 1);
        if (EX) {
            for (int q = 0; q < NXS; q++)
                x1_arm(&xbar[q], NW, C, 4 * NX);
        } else {
            mbar_init(&xbar[0], 1);
            mbar_init(&xbar[1], 1);
        }
        const uint32_t wbytes = bytes * WB;
        mbar_arrive_expect(&wbar, wbytes);
        const char *w0 = (const char *)g.w + (uint64_t)v0 * VE * sizeof(WR);
        uint4 *wd = sw + (size_t)cv * (WF - WB); /* NB_EX with 16-bit w: the upper half of the f32 region */
        for (uint32_t p = 0; p < cnt * WB; p += NB_PIECE) {
            const uint32_t b = 16u * min((uint32_t)NB_PIECE, cnt * WB - p);
            bulk_load(wd + p, w0 + 16 * (uint64_t)p, b, &wbar);
        }
        if (cnt > 0) { /* a block past the row's vectors (nvv < C cv) loads nothing: its barriers never wait */
            issue(0); /* NB_EXW3: row 2 once w is out of its stage, below */
            if (team + nteams < g.rows)
                issue(1);
        }
        if (EX) {
            stats(0);
            for (int q = 1; q < NS; q++)
                if (team + (uint64_t)q * nteams < g.rows)
                    stats(q);
        }
    }
    if (EX) /* the slots no warp writes (NW x C up to a multiple of 32: C = 1), which the fold reads; a slot
             * is NX floats (rmsnorm: one, so the floats past NW x C, not the float2s) */
        for (uint32_t j = threadIdx.x; j < NXS * NW * 16; j += NBT)
            if (j % (NW * 16) >= NW * C * NX)
                ((float *)xs[j / (NW * 16)])[j % (NW * 16)] = 0.0f;
    if (C > 1)
        nb_cluster_sync(); /* the barriers are initialised before anyone (a peer's st.async too) uses them */
    else
        __syncthreads();
    if (cnt > 0)
        mbar_wait(&wbar, 0);
    if (EX) { /* rows 0 to NS - 1's rstd (mean), in flight beside w's chunk */
        if (threadIdx.x == 0)
            cp_async_wait_all();
        __syncthreads();
    }
    if (EX == NB_EX && WF > WB) {
        /* 16-bit w: each thread widens its vectors of the raw chunk (at sw
         * + cv) into f32 (vector vi at sw + 2 vi, over the raw one of
         * vector 2 vi - cv: every raw vector read before any is written) */
        uint4 raw[VPT];
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint32_t vi = threadIdx.x + i * NBT;
            raw[i] = vi < cnt ? sw[cv + vi] : make_uint4(0u, 0u, 0u, 0u);
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint32_t vi = threadIdx.x + i * NBT;
            if (vi < cnt) {
                float f[VE];
                norm_w_widen_x<DT, WT>(&raw[i], f);
                float4 *d4 = reinterpret_cast<float4 *>(sw) + (size_t)vi * WF;
#pragma unroll
                for (int h = 0; h < WF; h++)
                    d4[h] = make_float4(f[4 * h], f[4 * h + 1], f[4 * h + 2], f[4 * h + 3]);
            }
        }
        __syncthreads();
    }
    const float inv_n = 1.0f / (float)g.cols; /* EX */
    /* NB_EXW: the thread's w in registers for the launch (its columns are
     * the same every row), none of it read from shared memory in the rows:
     * NORM_RMS widened to f32 (VPT x VE = 16 registers, 63 in all at
     * 16-bit); NORM_LN, whose dw and db take 32 and leave no room for 16,
     * with 16-bit w in its storage (VPT vectors, 8 registers; 64 in all, no
     * spills), widened at use as bulk does; NORM_LN with f32 w reads it from
     * shared memory as bulk. Past the chunk: zeros, never used. */
    const bool WREG = EXW && MODE == NORM_RMS;
    const bool WRAW = EXW && MODE == NORM_LN && sizeof(WR) == 2;
    float wr[WREG ? VPT : 1][VE];
    uint4 wraw[WRAW ? VPT : 1][WB];
#pragma unroll
    for (int i = 0; i < VPT; i++) {
        const uint32_t vi = threadIdx.x + i * NBT;
        if (WREG) {
            if (vi < cnt)
                nb_w<DT, WT, NB_BULK, NB_FX>(sw, vi, wr[i]);
            else
#pragma unroll
                for (int e = 0; e < VE; e++)
                    wr[i][e] = 0.0f;
        }
        if (WRAW)
            wraw[i][0] = vi < cnt ? sw[vi] : make_uint4(0u, 0u, 0u, 0u);
    }
    if (NS == 3) {
        /* w is in registers: stage 2's buffer is free for row 2 */
        __syncthreads();
        if (threadIdx.x == 0 && cnt > 0 && team + 2 * nteams < g.rows) {
            fence_proxy_async(); /* the block's reads of w, before the engine overwrites them */
            issue(2);
        }
    }
    /* w's VE values for the thread's i-th vector, vi of the chunk */
    auto w_at = [&](int i, uint32_t vi, float *wf) {
        if (WREG) {
#pragma unroll
            for (int e = 0; e < VE; e++)
                wf[e] = wr[WREG ? i : 0][e];
        } else if (WRAW) {
            norm_w_widen_fx<DT, WT, NB_FX>(wraw[WRAW ? i : 0], wf);
        } else {
            nb_w<DT, WT, EX, NB_FX>(sw, vi, wf);
        }
    };

    float acc[NA][VPT][VE];
#pragma unroll
    for (int s = 0; s < NA; s++)
#pragma unroll
        for (int i = 0; i < VPT; i++)
#pragma unroll
            for (int e = 0; e < VE; e++)
                acc[s][i][e] = 0.0f;

    auto has = [&](uint64_t q) -> bool { return team + q * nteams < g.rows; }; /* the team has a k-th row */
    /* Row k's first pass: its rstd (and mean) and, bulk only, the warp's
     * sums (EX: sent, by x1_send, into every CTA's slot set k % NXS). */
    struct p1_out {
        float rs, mu;
        float2 s;
    };
    auto pass1 = [&](uint64_t k) -> p1_out {
        const uint64_t r = team + k * nteams;
        const uint64_t sg = stage_of(k);
        const uint4 *sx = sm + 2 * (size_t)cv * sg, *sd = sx + cv;
        float rs, mu;
        if (EX) {
            rs = rm[sg][0];
            mu = MODE == NORM_LN ? rm[sg][1] : 0.0f;
        } else {
            rs = g.rstd[r];
            mu = MODE == NORM_LN ? g.mean[r] : 0.0f;
        }
        if (cnt > 0)
            mbar_wait(&full[sg], phase_of(k));
        /* pass 1: the row sums (VPT x VE <= 16 terms a thread, in order) and the dw (db) terms */
        float d = 0.0f, d1 = 0.0f;
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint32_t vi = threadIdx.x + i * NBT;
            if (vi >= cnt)
                break;
            const uint4 xv = sx[vi], dv = sd[vi];
            float wf[VE];
            w_at(i, vi, wf);
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
        const float2 s = nb_warp_sum(make_float2(d, d1), 32);
        if (EX) { /* every warp's sums to its slot in every CTA of the cluster */
            float v[NX];
            v[0] = s.x;
            v[NX - 1] = NX > 1 ? s.y : s.x;
            x1_send<NX, NW>(v, (float *)xs[k % NXS], &xbar[k % NXS], C, rank, false);
        }
        return p1_out{rs, mu, s};
    };
    /* Row k's second half, after its first pass p: the row's sums (EX: one
     * wait, the fold), pass 2 (dx), the end-of-row barrier and the stage's
     * refill with row k + NS. */
    auto pass2_row = [&](uint64_t k, const p1_out &p) {
        const uint64_t r = team + k * nteams;
        const uint64_t sg = stage_of(k);
        const uint4 *sx = sm + 2 * (size_t)cv * sg, *sd = sx + cv;
        const float rs = p.rs, mu = p.mu;
        float2 s = p.s;
        if (EX) {
            /* one wait on the set's phase, then the fold */
            const float *xr = (const float *)xs[k % NXS];
            mbar_wait(&xbar[k % NXS], (uint32_t)(k / NXS) & 1u);
            if (threadIdx.x == 0) /* this barrier's next phase is row k + NXS's */
                x1_rearm(&xbar[k % NXS], NW, C, 4 * NX);
            /* lane l: slots l, l + 32, ... in order (a uniform bound: the slots
             * past NW x C up to a multiple of 32 hold zeros, written at the start) */
            float2 t = make_float2(0.0f, 0.0f);
#pragma unroll
            for (unsigned i = 0; i < (NW * 8 + 31) / 32; i++) {
                if (32 * i >= NW * C)
                    break;
                t.x += xr[(lane + 32 * i) * NX];
                if (NX > 1)
                    t.y += xr[(lane + 32 * i) * NX + NX - 1];
            }
            s = nb_warp_sum(t, 32); /* a butterfly: the same bits in every lane */
        } else { /* bulk: the block through shared memory, then thread 0 to every CTA of the cluster */
            if (lane == 0)
                red[wid] = s;
            __syncthreads();
            s = nb_warp_sum(lane < NBT / 32 ? red[lane] : make_float2(0.0f, 0.0f), NBT / 32);
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
        }
        float c, c1 = 0.0f;
        if (MODE == NORM_LN) {
            c1 = EX ? s.y * inv_n : s.y / (float)g.cols;
            c = EX ? s.x * inv_n : s.x / (float)g.cols;
        } else {
            c = (EX ? s.x * inv_n : s.x / (float)g.cols) * rs * rs * rs;
        }
        /* pass 2: dx. F4 (EX, NORM_LN, 2^-32 <= rstd <= 2^32: a2 neither
         * underflows nor overflows for rows of |x| up to ~2^32 x their
         * spread; the other rows, ~2^40 and beyond, take bulk's form):
         * dx = fmaf(x - mean, a2, fmaf(w dy, rstd, b1)) */
        const float a2 = -(c * rs) * rs, b1 = -(c1 * rs);
        uint4 *dx0 = (uint4 *)((char *)g.dx + r * rowb + coff);
        auto pass2 = [&](auto f4) {
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint32_t vi = threadIdx.x + i * NBT;
                if (vi >= cnt)
                    break;
                const uint4 xv = sx[vi], dv = sd[vi];
                float wf[VE], f[VE];
                w_at(i, vi, wf);
#pragma unroll
                for (int e = 0; e < VE; e++) {
                    const float xk = norm_elx<DT, NB_FX>(xv, e), dk = norm_elx<DT, NB_FX>(dv, e);
                    if (decltype(f4)::value)
                        f[e] = fmaf(xk - mu, a2, fmaf(wf[e] * dk, rs, b1));
                    else if (MODE == NORM_LN)
                        f[e] = fmaf(-((xk - mu) * rs), c, wf[e] * dk - c1) * rs;
                    else
                        f[e] = fmaf(-xk, c, rs * (wf[e] * dk));
                }
                dx0[vi] = norm_pack<DT>(f);
            }
        };
        if (EX && MODE == NORM_LN && rs >= 0x1p-32f && rs <= 0x1p32f) /* the row's choice: a uniform branch */
            pass2(nb_bool<EX && MODE == NORM_LN>());
        else
            pass2(nb_bool<false>());
        /* row k + 1's rstd (mean), asked a row ago (NB_PIPE: row k + 2's, asked at row k - 1's end), in rm
         * before the barrier */
        if (EX && threadIdx.x == 0)
            cp_async_wait_all();
        __syncthreads(); /* every thread is done with the stage and rm[sg] (and with red; EX: red unused) */
        if (EX && threadIdx.x == 0 && has(k + NS))
            stats(k + NS);
        if (threadIdx.x == 0 && cnt > 0 && has(k + NS)) {
            fence_proxy_async(); /* our reads of the stage, before the engine overwrites it */
            issue(k + NS);
        }
    };

    /* The rows. NB_PIPE: row k + 1's first pass (its sums sent) comes
     * before row k's wait, so that a warp reaches that wait one first pass
     * after the cluster's warps sent row k's sums; within a round of
     * SL_NORM_DW_ROWS rows only, so that a round's partial holds its own
     * rows (a round's first row's pass 1 follows the previous round's
     * partial): dx, dw and db are bulk_exw's bits. The others: row k's
     * two halves in turn. */
    p1_out cur = {0.0f, 0.0f, make_float2(0.0f, 0.0f)}; /* NB_PIPE: row k's first pass, done a row ahead */
    uint64_t k = 0; /* the team's rows so far */
    if (PIPE && has(0))
        cur = pass1(0);
    for (uint64_t j = 0; j < nflush; j++) {
        for (const uint64_t k1 = (j + 1) * SL_NORM_DW_ROWS; k < k1 && has(k); k++) {
            p1_out nxt = cur;
            if (!PIPE)
                cur = pass1(k);
            else if (k + 1 < k1 && has(k + 1))
                nxt = pass1(k + 1);
            pass2_row(k, cur);
            cur = nxt;
        }
        /* the round's partial row: this block's columns (zeros where the team had no rows in it) */
        const uint64_t pr = team + j * nteams;
#pragma unroll
        for (int s = 0; s < NA; s++) {
            float *part = (s ? g.partb : g.part) + pr * g.cols + (uint64_t)v0 * VE;
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint32_t vi = threadIdx.x + i * NBT;
                if (vi < cnt) /* 4-byte stores: the workspace need not be on 16 bytes; once every 256 rows */
#pragma unroll
                    for (int e = 0; e < VE; e++)
                        part[(uint64_t)vi * VE + e] = acc[s][i][e];
#pragma unroll
                for (int e = 0; e < VE; e++)
                    acc[s][i][e] = 0.0f;
            }
        }
        if (PIPE && has(k)) /* the next round's first row */
            cur = pass1(k);
    }
    if (C > 1 && !EX)
        nb_cluster_sync(); /* no block exits while its st.async to a peer may be in flight (EX: cluster_x1.cuh) */
#else
    /* the launchers run this kernel only on sm_90 and later, from sm_90 code */
    (void)g;
    __trap();
#endif
}

/* The bulk kernel for (DT, WT) at VPT vectors a thread: 2, or 4 for f32
 * rows past 8 x NB_MAXV vectors; EX: NB_BULK, NB_EX, NB_EXW, NB_EXW3 or
 * NB_PIPE (where norm_bwd_bulk_stages3 allows, else NB_EXW's kernel: E3 and
 * E4 are the configurations instantiated at 2 and 4 vectors a thread);
 * NB_Q: 2 vectors a thread, chunks of up to NB_Q_MAXV vectors, and false
 * where three stages do not apply (layernorm with f32 w). */
template <int MODE, int EX> struct norm_bwd_bulk_pick {
    template <int DT, int WT> struct at {
        static bool run(uint32_t cv, const void **fn)
        {
            /* NB_EXW3 runs bulk_exw's kernel where three stages do not apply
             * (norm_bwd_bulk_stages3, the rule the plan's shared memory
             * follows): E3 for chunks of up to NB_MAXV vectors, E4 beyond */
            enum {
                S3 = norm_bwd_bulk_three(EX),
                E3 = S3 && !norm_bwd_bulk_stages3(MODE, NB_MAXV, sizeof(typename sl_dt<WT>::raw)) ? NB_EXW : EX,
                E4 = S3 && !norm_bwd_bulk_stages3(MODE, NB_MAXV + 1, sizeof(float)) ? NB_EXW : EX
            };
            if constexpr (EX == NB_Q && E3 != EX) { /* NB_Q: three stages only (w in registers) */
                (void)cv;
                (void)fn;
                return false;
            } else if constexpr (EX == NB_Q) { /* chunks of up to NB_Q_MAXV vectors */
                if (cv > NB_Q_MAXV)
                    return false;
                *fn = (const void *)norm_bwd_bulk<DT, WT, 2, MODE, EX>;
                return true;
            } else {
                if (cv <= NB_MAXV)
                    *fn = (const void *)norm_bwd_bulk<DT, WT, 2, MODE, E3>;
                else if (DT == SL_F32 && cv <= NB_MAXV_F32)
                    *fn = (const void *)norm_bwd_bulk<SL_F32, SL_F32, 4, MODE, E4>;
                else
                    return false;
                return true;
            }
        }
    };
};

/* The checks and configuration of a bulk launch of op (its weight at
 * buffer iw; a checked by sl_norm_check, rows and cols > 0) by rung who
 * (EX: NB_BULK, NB_EX, NB_EXW, NB_EXW3, NB_PIPE or NB_Q): aligned
 * (norm_fwd_aligned), sm_90 with sm_90 code loaded, rows of at most 8
 * chunks; else SL_ERR_UNSUPPORTED, saying which. c: the kernel, 512 threads
 * (NB_Q: 256), the cluster of C blocks and the shared memory of its
 * chunk (norm_bwd_grid_of and norm_bwd_launch take it as a register
 * kernel's). */
template <int MODE, int EX>
static sl_status norm_bwd_bulk_plan(const sl_args *a, int iw, const char *op, const char *who, norm_bwd_cfg *c)
{
    typedef norm_bwd_bulk_pick<MODE, EX> pick; /* one macro argument */
    static int code_cache[SL_MAX_DEVICES];
    const size_t es = sl_dtype_size(a->dtype);
    if (!norm_fwd_aligned(a))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s: a buffer off 16 bytes, or cols %llu (ld %llu) not a multiple of %zu elements (the "
                       "bulk copies move whole 16-byte vectors): regs runs it",
                       op, who, (unsigned long long)a->shape.cols,
                       (unsigned long long)(a->shape.ld ? a->shape.ld : a->shape.cols), 16 / es);
    if (!sl_cuda_row_clusters())
        return sl_fail(SL_ERR_UNSUPPORTED, "%s %s: needs sm_90 or newer (cp.async.bulk, clusters)", op, who);
    const sl_dtype wt = norm_wdtype(a, iw);
    if (EX == NB_Q && !norm_bwd_bulk_stages3(MODE, NB_Q_MAXV, sl_dtype_size(wt)))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s: three stages need w in registers, not f32 w read from shared memory: bulk_ex or bulk "
                       "run it",
                       op, who);
    const uint64_t nvv = a->shape.cols * es / 16;
    unsigned C = 1;
    uint32_t cv = 0;
    const void *fn = NULL;
    const uint32_t maxv = EX == NB_Q ? NB_Q_MAXV : NB_MAXV;
    if ((!sl_cuda_row_chunks(nvv, maxv, 1, &C, &cv) &&
         (EX == NB_Q || a->dtype != SL_F32 || !sl_cuda_row_chunks(nvv, NB_MAXV_F32, 1, &C, &cv))) ||
        !NORM_DISPATCH(a->dtype, wt, pick::template at, cv, &fn))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s: a row of %llu columns is beyond 8 chunks of %d 16-byte vectors: regs runs it", op, who,
                       (unsigned long long)a->shape.cols,
                       EX == NB_Q ? (int)NB_Q_MAXV : a->dtype == SL_F32 ? (int)NB_MAXV_F32 : (int)NB_MAXV);
    sl_status st = bulk_code_ok(fn, code_cache);
    if (st != SL_OK)
        return st;
    c->fn = fn;
    c->block = norm_bwd_bulk_threads(EX);
    c->cl = C;
    c->warp = false;
    const size_t ws = EX == NB_EX ? sizeof(float) : sl_dtype_size(wt);
    c->smem = norm_bwd_bulk_smem(cv, es, ws, norm_bwd_bulk_three(EX) && norm_bwd_bulk_stages3(MODE, cv, ws));
    return SL_OK;
}

#endif /* SL_NORM_BWD_BULK_CUH */
