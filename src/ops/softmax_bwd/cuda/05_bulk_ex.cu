/*
 * softmax backward rung 5 (ours): bulk (rung 4) with the one-sided cluster
 * exchange (common/cluster_x1.cuh) and the forward softmax bulk_ex's
 * granularity (softmax/cuda/smx_bulk.cuh with X1 = 1, 10_bulk_ex.cu).
 *
 * Change from rung 4 (bulk): rung 4 runs 512-thread blocks on chunks of up
 * to 36 KiB of y plus 36 KiB of dy (three blocks an SM), waits on ONE
 * mbarrier for the whole chunk before its first product, reduces the
 * block's sum with two bar.sync, meets the cluster with a full barrier
 * (arrive + wait: every thread of the C blocks) to read the C sums, and
 * arrives on another cluster barrier (release: a MEMBAR.ALL.GPU) to wait
 * on it at the exit. Here:
 *   - 256-thread blocks, chunks of 16 KiB of y + 16 KiB of dy (the fewest
 *     C of 1, 2, 4, 8 that fit; rows over 8 x 16 KiB of each input take
 *     up to 8 x 36 KiB, rung 4's limit, so every row rung 4 takes, this
 *     rung takes), __launch_bounds__(256, 6): six blocks an SM (6 x 32 KiB
 *     = 192 KiB staged, as rung 4's three of 64-72 KiB; a seventh does not
 *     fit the 228 KiB with each block's 1 KiB reserve), each in its own
 *     phase, so a block in its exchange or its stores leaves 1/6 of the
 *     SM's staging idle instead of 1/3. The same reasoning as the forward
 *     softmax's sb_ex (32 KiB a block, six an SM), with the block's 32 KiB
 *     split between the two inputs. Rung 4's few-rows split is added as
 *     in the forward: while rows x C <= SMs and chunks stay >= 512
 *     vectors of each input (16 KiB a block), C doubles.
 *   - pieces: the chunk's copies are cut into pieces of 256 vectors (4 KiB)
 *     of y and the same 256 of dy, the pair on one mbarrier (8 KiB a
 *     mbarrier, the forward's piece; four pieces in a 16 KiB chunk, nine
 *     at most); the first sweep (s += y . dy, one vector pair a thread a
 *     piece) waits on each piece as it lands instead of on the whole chunk.
 *   - the exchange: each warp folds its lanes' sums (butterfly), then lane
 *     q < C stores the warp's sum (4 bytes, st.async with complete_tx) into
 *     slot [rank x 8 + warp] of CTA q, completing CTA q's exchange mbarrier
 *     (armed by thread 0 beside the copies for 8 x C x 4 bytes); every
 *     thread waits on its own CTA's mbarrier, and every warp folds the 8 x C
 *     slots in slot order (lane l adds slots l and l + 32, then a butterfly):
 *     the same s bits in every warp of every CTA of the row. C = 1: lane 0
 *     writes its slot and arrives (an mbarrier of 8 arrivals). No bar.sync
 *     (beyond the one after the mbarriers' initialisation) and no cluster
 *     barrier in the row's path, no MEMBAR, nothing waited at the exit: a
 *     CTA's slots have received every byte before its own wait passes, and
 *     nothing is read remotely. The cluster arrive (relaxed) follows the
 *     initialisation, its wait comes before the first remote store (every
 *     peer's mbarrier initialised), by then overlapped by the loads.
 *   - the second sweep, as rung 4: dx = y (dy - s) from shared memory,
 *     16-byte st.global.
 * Bytes in flight: the same 192 KiB an SM as rung 4 while loading; what
 * changes is how long a block holds its staging while not loading or
 * storing (rung 4: its whole block from the slowest warp of the slowest
 * block of the cluster to the end of the cluster barrier; here one warp
 * waits only for the C x 8 sums) and how much of an SM that is (1/6).
 *
 * Safe in place (dx = dy or dx = y): a block writes only its own chunk of
 * its own row (columns [rank cv, rank cv + cnt) of dx), and only in the
 * second sweep, after every thread waited on every piece of that chunk in
 * the first (the pieces' mbarriers completed: the bulk copies' reads of y
 * and dy there are done). No other CTA reads that chunk: each CTA's bulk
 * copies read only its own chunk of y and dy (the chunks of a row are
 * disjoint, rows do not overlap: ld >= cols), and the exchange carries
 * only the warps' f32 sums, CTA to CTA through shared memory.
 *
 * Numerics (the same as rung 4; docs/ladder.md, "Tolerances" under
 * softmax backward): s in f32, each product of widened 16-bit storage
 * exact (f32: rounded once), a thread's vectors chained by fmaf (sbwd_dot)
 * then added to its sum, the warp butterfly (5 levels), the slots' fold
 * (one add and 5 levels): a term's longest chain of roundings is a
 * thread's 8 ceil(cv / 256) products and adds plus 11 tree levels (rung 4:
 * the same thread chain over 512 threads plus 5 + 15 + C), within
 * ceil(cols / 32) + 6 wherever a thread holds two or more vector pairs,
 * and, as for rung 4 and vec, up to 3 roundings beyond that for 16-bit
 * rows of 16-255 columns (one vector a thread, the tree's nonzero
 * levels): the op's L = ceil(cols / 32) + 9 covers both.
 * So |dx - dx_exact| <= 2 ulp(dx) + |y_j| L 2^-24 sum_k |y_k dy_k|, the
 * op's SL_TOL_REDUCTION bound. The fold is in slot order, the same in
 * every warp and CTA: every block of a row uses identical s; run to run
 * deterministic. A NaN in y or dy makes s, and so the row of dx, NaN.
 *
 * Limits: rung 4's (y, dy and dx 16-byte aligned, cols and ld x size
 * multiples of 16 bytes, sm_90 code loaded), and rows of at most 8 x 64 KiB
 * of each input (rung 4: 8 x 36 KiB), else SL_ERR_UNSUPPORTED with a
 * message. Rows beyond 8 x 36 KiB (f32 rows of 73729-131072 columns,
 * 16-bit rows of 147457-262144) take chunks of up to 64 KiB + 64 KiB, one
 * block an SM (fourteenth session): 128 KiB an SM in flight while loading,
 * and none while a block exchanges and stores; predicted 0.90-1.00 of the
 * copy at 16384 x 131072 f32, where the register rung (the public function
 * before) measured 0.957 of the copy by medians and 0.875x quack's speed
 * (bench/results/h200-row-peers-2026-11-27d.md).
 * Seventeenth session: where those eight chunks exceed 3592 vectors (two
 * blocks no longer fit an SM: f32 rows of 114945-131072 columns, 16-bit of
 * 229889-262144), the row runs in a cluster of 16 (non-portable; where the
 * device schedules one, else eight) of chunks of <= 2048 vectors, three
 * blocks an SM, so a block's exchange and stores overlap two others'
 * loads: 1.11 of the copy against 0.93-1.00 in eight chunks on an H200
 * (docs/ladder.md, "softmax_bwd: the longest rows in clusters of 16").
 * Sixteen CTAs fill 128 slots; a lane folds four, so s gains two rounding
 * levels (13), far inside ceil(cols / 32) + 6 at these widths.
 * Expectation (written before the first run; docs/ladder.md, "softmax_bwd,
 * fifth rung: the one-sided cluster exchange (bulk_ex)"), H200, fraction of
 * the copy kernel: bf16 4096 x 32768 0.97-1.00 (rung 4 0.935), 16384 x
 * 16384 0.97-1.00, 16384 x 131072 1.00-1.05 (rung 4 ~1.03), f32 4096 x
 * 32768 0.97-1.02.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster_x1.cuh"
#include "sbwd_bulk.cuh"


enum {
    SX_BLOCK = 256,
    SX_NW = SX_BLOCK / 32,
    SX_KP = 1024,       /* vectors of each input a chunk the plan prefers: 16 KiB + 16 KiB */
    SX_MINV = 512,      /* the smallest chunk the few-rows split makes: 8 KiB + 8 KiB */
    SX_PIECE = SX_BLOCK, /* vectors of each input a piece (one mbarrier): one pair a thread */
    SX_PIECES = (SK_MAXV_EX + SX_PIECE - 1) / SX_PIECE
};

/* Six 256-thread blocks an SM on sm_90 (the 40-register cap); the other
 * architectures this file is compiled for get no bound (the body is sm_90
 * only). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SX_MINB 6
#else
#define SX_MINB 1
#endif

template <int DT>
static __global__ void __launch_bounds__(SX_BLOCK, SX_MINB)
    sbwd_bulk_ex(sbwd_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    extern __shared__ __align__(128) uint4 sm[]; /* y in [0, cv), dy in [cv, 2 cv) */
    __shared__ __align__(8) float xr[SX_NW * 16]; /* the cluster's warp sums, slot rank x 8 + warp (C <= 16) */
    __shared__ __align__(8) uint64_t bar[SX_PIECES], xb;
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const uint32_t npc = (cnt + SX_PIECE - 1) / SX_PIECE;
    const uint32_t t = threadIdx.x;
    const uint64_t off = row * g.ld * sizeof(R) + 16 * (uint64_t)v0;
    if (t == 0) {
#pragma unroll
        for (uint32_t p = 0; p < SX_PIECES; p++)
            mbar_init(&bar[p], 1);
        x1_arm(&xb, SX_NW, C, 4);
#pragma unroll
        for (uint32_t p = 0; p < SX_PIECES; p++) {
            if (p < npc) {
                const uint32_t b = 16u * min((uint32_t)SX_PIECE, cnt - p * SX_PIECE);
                const uint64_t o = off + 16 * (uint64_t)(p * SX_PIECE);
                mbar_arrive_expect(&bar[p], 2u * b);
                bulk_load(sm + p * SX_PIECE, (const char *)g.y + o, b, &bar[p]);
                bulk_load(sm + cv + p * SX_PIECE, (const char *)g.g + o, b, &bar[p]);
            }
        }
    }
    __syncthreads(); /* the barriers are initialised before anyone waits or arrives on them */
    if (C > 1)
        cluster_arrive_relaxed(); /* waited on before the first remote store (x1_post) */

    /* sweep 1: the thread's share of s, a piece at a time as it lands */
    float s = 0.0f;
#pragma unroll 1
    for (uint32_t p = 0; p < npc; p++) {
        mbar_wait(&bar[p], 0);
        const uint32_t j = p * SX_PIECE + t;
        if (j < cnt)
            s += sbwd_dot<DT>(sm[j], sm[cv + j]);
    }

    /* the row's s: the warp's sum into every CTA's slots, one wait, every
     * warp folds the 8 x C of them in slot order (C <= 16: four slots a
     * lane at most) */
    s = smx_warp<smx_sum_op>(s);
    const float v[1] = {s};
    x1_post<1, SX_NW>(v, xr, &xb, C, rank, true);
    const uint32_t lane = t & 31u, n = SX_NW * C;
    float f = 0.0f;
#pragma unroll
    for (uint32_t i = 0; i < (SX_NW * 16 + 31) / 32; i++)
        if (lane + 32 * i < n)
            f += xr[lane + 32 * i];
    s = smx_warp<smx_sum_op>(f);

    /* sweep 2: dx = y (dy - s), 16-byte stores of this block's chunk only */
    char *dr = (char *)g.d + off;
#pragma unroll 4
    for (uint32_t j = t; j < cnt; j += SX_BLOCK) {
        const uint4 y = sm[j], d = sm[cv + j];
        float e[VE];
#pragma unroll
        for (int k = 0; k < VE; k++)
            e[k] = sbwd_el<DT>(y, k) * (sbwd_el<DT>(d, k) - s);
        *(uint4 *)(dr + 16 * (uint64_t)j) = sbwd_pack<DT>(e);
    }
#else
    /* the launcher runs this rung only where the loaded code is sm_90 or later */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

static const void *sx_fn(sl_dtype dt)
{
    return dt == SL_F32    ? (const void *)sbwd_bulk_ex<SL_F32>
           : dt == SL_BF16 ? (const void *)sbwd_bulk_ex<SL_BF16>
                           : (const void *)sbwd_bulk_ex<SL_F16>;
}

static bool sx_plan(const sl_args *a, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    return sbwd_bulk_plan(a, SX_KP, SK_MAXV_EX, true, SX_MINV, C, nvec, cv);
}

/* Rows whose eight chunks leave room for only one block an SM (chunks of
 * more than SX_C16_FROM vectors: 2 x (cv x 32 + 768 static + 1024 reserved)
 * bytes over sm_90's 228 KiB; f32 rows of 114945-131072 columns, 16-bit of
 * 229889-262144) run in a cluster of 16 (non-portable: where the device
 * schedules one) with chunks of at most SK_MAXV_EX / 2 vectors, three
 * blocks an SM. Measured on an H200 (docs/ladder.md, "softmax_bwd: the
 * longest rows in clusters of 16"): f32 2048 x 131072 1.11 of the copy
 * against 0.995 in eight chunks, bf16 1024 x 262144 1.11 against 0.93; at
 * 3128 and 2312 vectors, where eight chunks fit two blocks an SM, the two
 * were within 1.3% (eight ahead at 2312). SL_SBWD_EX_C16=0 keeps eight
 * (the A/B lever). */
enum { SX_C16_FROM = 3592 };

static bool sx_c16_wanted(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("SL_SBWD_EX_C16");
        on = !(e && strcmp(e, "0") == 0);
    }
    return on;
}

static sl_status sx_prepare(sl_dtype dt)
{
    static int ready[3][SL_MAX_DEVICES];
    return sbwd_bulk_prepare(sx_fn(dt), dt, SK_MAXV_EX, ready);
}

/* The sm_90 code for this dtype was loaded (sbwd_bulk_code). */
static sl_status sx_code(sl_dtype dt)
{
    static int cache[3][SL_MAX_DEVICES];
    return sbwd_bulk_code(sx_fn(dt), dt, cache);
}

/* Whether this device schedules the kernel in clusters of 16 with chunks
 * of SK_MAXV_EX / 2 vectors (once per device and dtype). After sx_prepare. */
static bool sx_c16_ok(sl_dtype dt)
{
    static int state[3][SL_MAX_DEVICES];
    return sl_cuda_row_cluster_ok(sx_fn(dt), SX_BLOCK, 16, (size_t)SK_MAXV_EX / 2 * 32,
                                  state[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

bool sl_cuda_softmax_bwd_bulk_ex_fits(const sl_args *a)
{
    unsigned c;
    uint32_t nv, cv;
    return sx_plan(a, &c, &nv, &cv);
}

/* a checked by the caller (sbwd_check), rows and cols > 0. */
sl_status sl_cuda_softmax_bwd_bulk_ex_run(const sl_args *a)
{
    int cc = 0;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (cc < 90)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "softmax_bwd bulk_ex: needs sm_90 or newer (cp.async.bulk, clusters); this device is sm_%d", cc);
    unsigned C;
    uint32_t nvec, cv;
    if (!sx_plan(a, &C, &nvec, &cv))
        return sbwd_bulk_refuse(a, "bulk_ex", SK_MAXV_EX);
    if ((st = sx_code(a->dtype)) != SL_OK || (st = sx_prepare(a->dtype)) != SL_OK)
        return st;
    if (C == 8 && cv > SX_C16_FROM && a->shape.rows * 16 <= 0x7fffffffu && sx_c16_wanted() &&
        sx_c16_ok(a->dtype)) {
        C = 16; /* eight chunks of > SX_C16_FROM vectors: sixteen of <= SK_MAXV_EX / 2 */
        cv = sbwd_bulk_cv(nvec, 16);
    }
    sbwd_geo g = sbwd_geo_of(a);
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(sx_fn(a->dtype), a->shape.rows * C, SX_BLOCK, C, (size_t)cv * 32, params,
                                   a->stream);
}

extern "C" sl_status sl_cuda_softmax_bwd_bulk_ex(const sl_args *a)
{
    sl_status st = sbwd_check(a, "bulk_ex");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return sl_cuda_softmax_bwd_bulk_ex_run(a);
}

extern "C" sl_status sl_cuda_softmax_bwd_bulk_ex_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = sx_prepare(dt);
    return st != SL_OK ? st : sl_cuda_kernel_attrs(sx_fn(dt), SX_BLOCK, (size_t)2 * SK_MAXV_EX * 16, out);
}
