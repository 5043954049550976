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
 *   Not the public function's pick.
 * Measured (H200, twenty-first session, bench/results/h200-norm-bwd-rcl-2026-11-29.md):
 *   refuted. bf16 0.579-0.615 of the copy at 4096 x 32768, 8192 x 24576
 *   and 8192 x 16384: 27-35% more time than bulk_q (0.745-0.791); likely short
 *   of loads in flight (3 rows in registers: 32-64 KiB a SM; not profiled).
 *   Kept as a measured rung: it shares its template with rmsnorm_bwd's.
 * The kernel's body and the host's limits moved to common/norm_bwd_rcl.cuh
 * (norm_bwd_rcl<DT, NORM_LN, 3>, norm_bwd_rcl_plan) when rmsnorm_bwd took
 * the same design (its 16_regs_cl.cu): the same PTX for this kernel, the
 * same refusals and messages.
 */
#include "layernorm_bwd.h"
#include "norm_bwd_rcl.cuh"

enum { LN_RCL_NR = 3 /* rows of x and dy in registers: the current one and two in flight */ };

template <int DT>
static __global__ void __launch_bounds__(RCL_T, RCL_MINB) ln_bwd_regs_cl(norm_bwd_geo g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    norm_bwd_rcl<DT, NORM_LN, LN_RCL_NR>(g);
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
    norm_bwd_cfg c = {};
    if ((st = norm_bwd_rcl_plan(a, SL_LNB_W, "layernorm_bwd", who, (const void *)ln_bwd_regs_cl<SL_BF16>,
                                (const void *)ln_bwd_regs_cl<SL_F16>, code_cache, &c)) != SL_OK)
        return st;
    return norm_bwd_run_ln(a, &c, who);
}
