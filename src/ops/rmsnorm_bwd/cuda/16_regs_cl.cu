/*
 * rmsnorm backward rung 17 (regs_cl): layernorm_bwd's regs_cl (its
 * 16_regs_cl.cu, twenty-first session) ported to the rmsnorm backward: the
 * row held in registers between its two passes, split across a
 * thread-block cluster, persistent clusters walking rows with the next
 * rows' loads in flight in a register ring. The kernel's body is shared
 * with layernorm's (common/norm_bwd_rcl.cuh, norm_bwd_rcl<DT, NORM_RMS,
 * 4>), as are its limits and launch configuration (norm_bwd_rcl_plan).
 * Designed from docs/ladder.md's description; no code from quack or
 * elsewhere.
 *
 * Source: issue 32 (rmsnorm_bwd at 16384-32768 bf16 columns: 0.82-0.87
 * of the copy kernel on the H200 against a bar of 0.90), docs/ladder.md
 * "The norms' backwards" (seventh to eighteenth sessions: bulk, bulk_ex,
 * bulk_exw, bulk_exw3, bulk_pipe, bulk_q each within +-3% of the one
 * before at these rows; the limit unexplained by anything tried).
 *
 * Change from bulk_q / the public function's bulk (05_bulk.cu): no
 * shared-memory staging. A block of 256 threads owns a fixed chunk of at
 * most 512 16-byte vectors of every row (two a thread), C = ceil(vectors /
 * 512) blocks a cluster (16-bit: C = 1 at 4096 columns, 4 at 16384, 8 at
 * 32768). Each thread keeps NR = 4 rows of its x and dy in registers:
 * row k worked on, rows k + 1 .. k + 3 loads in flight (layernorm's ring
 * holds 3: rmsnorm has one row sum, no mean and no db, so 16 + 2 registers
 * fewer, which pay for a fourth row). Pass 1 from registers: D = sum (w
 * dy) x (16 terms in order) and dw += (dy rstd) x in registers, the warp's
 * butterfly, one float st.async to every CTA of the cluster (cluster_x1.cuh,
 * two slot sets by row), one mbarrier wait, the fold of the 8 C slots in
 * index order; pass 2 from the same registers: dx = fmaf(-x, c, rstd (w
 * dy)), c = D / N rstd^3 (bulk_ex's form), one 16-byte st.global a vector.
 * w widened once into registers; rstd 32 rows a window, one per lane,
 * shuffled. No __syncthreads and no cluster barrier in the row loop. A
 * partial row of dw per team and round of 256 rows, the fp64 finish of the
 * other rungs (dw.cu): deterministic, no atomics.
 *
 * Floor (bytes over bandwidth; the copy kernel's ~4.10 TB/s on the H200,
 * docs/ladder.md: 131 us for 2 M N x 2 bytes at 8192 x 16384): the op moves
 * 3 M N x 2 bytes at bf16 (x, dy read, dx written) plus the dw partials
 * (P N x 4 bytes written and read again by the finish; P = teams x rounds):
 *   8192 x 16384:  805 MB ->  196 us (C = 4, ~66 teams, P ~66:  +8.7 MB, 1.1%)
 *   32768 x 16384: 3221 MB -> 786 us (C = 4, ~66 teams, P ~132: +17 MB, 0.5%)
 *   4096 x 32768:  805 MB ->  196 us (C = 8, ~33 teams, P ~33:  +8.7 MB, 1.1%)
 *   32768 x 4096:  805 MB ->  196 us (C = 1, 264 teams, P 264:  +8.7 MB, 1.1%)
 *   with the finish's launch (~3 us) the best this design can show is
 *   ~0.97 of the copy (0.98 at 32768 x 16384).
 * Registers (__launch_bounds__(256, 2): at most 128 a thread, two blocks an
 *   SM): the ring 4 x 2 x (x, dy) x 4 = 64, dw 16, w as f32 16, the rstd
 *   windows 2, the rest (addresses, row counters, the sum) ~30: ~128.
 *   ptxas -v (sm_90, nvcc 13.0): bf16 and f16 both 128 registers, 0 bytes
 *   stack, 0 bytes spill stores / loads, 1040 bytes static shared memory
 *   (NR = 3 or 2: 126, no spills). nvdisasm of the committed build: each
 *   row's four LDG.E.128 (row k + 4) right after row k's two dx
 *   STG.E.128, ahead of row k + 1's STAS and mbarrier wait; the rstd
 *   window's load and the round's flush only in the ring's slot 0 and 3
 *   rows (k % 4 = 0, k % 256 = 255).
 * Bytes in flight a SM (Little's law; the H200 needs ~40-50 KiB a SM at
 *   ~4 TB/s over ~1.2-1.5 us loaded latency): three rows ahead of the one
 *   worked on, 3 x (16 + 16) bytes x 2 vectors = 192 bytes a thread, 512
 *   threads an SM: 96 KiB requested ahead at most, 64 KiB right after row
 *   k + 1 lands (layernorm's regs_cl: 64 / 32 KiB). bulk_q holds up to 4
 *   blocks x 2 stages x 16 KiB = 128 KiB, bulk (the public function's) 2 x
 *   2 x 32 KiB: this rung does not win by bytes in flight but, if it wins,
 *   by what a row costs besides its bytes (no shared-memory round trip of
 *   x and dy: 24 bytes of shared-memory traffic an element in bulk_q; no
 *   end-of-row barrier; no stage refill waiting for the slowest warp).
 * Prediction (written before any GPU run; H200, bf16, fraction of the copy
 *   in the same process, event timing; the public function's figures from
 *   bench/results/h200-norm-bwd-pipe-2026-11-28.md, -q-2026-11-28.md and
 *   h200-row-peers-bwd-2026-11-28*.md):
 *   8192 x 16384:  public (bulk) 0.83-0.87 -> regs_cl 0.86-0.93 (1.00-1.08x)
 *   32768 x 16384: public (bulk, not measured at this shape; ~0.85-0.87
 *                  expected) -> regs_cl 0.87-0.94 (1.01-1.08x; 4x the rows
 *                  a team of 8192 x 16384, the ring's ramp and the rounds'
 *                  flushes amortised)
 *   4096 x 32768:  public (bulk) 0.82-0.85 -> regs_cl 0.85-0.92 (1.02-1.10x;
 *                  C = 8: every row waits for the slowest of 8 CTAs)
 *   32768 x 4096:  public (aligned's regs_sm) 0.936 -> regs_cl 0.90-0.95
 *                  (0.96-1.02x: C = 1, no remote exchange, but two blocks
 *                  an SM where regs_sm holds four; bulk_q, also C = 1 in
 *                  blocks of 256, ran 9% behind bulk_exw3 there)
 *   The spread is what no run has settled: every rung since bulk_ex was
 *   predicted to gain 5-10% and gained 0-5%, and quack's rmsnorm backward
 *   (this shape of design) ran 0.749 of the copy at 8192 x 65536 on an H100
 *   (docs/ladder.md, third session). If regs_cl lands at bulk's figures at
 *   16384-32768 columns, neither the staging nor the barriers limit these
 *   rows; the cluster-wide exchange (every CTA waits for the slowest a row)
 *   is what is left, and 32768 x 4096 (C = 1) would show it.
 * Risks only the GPU shows: a wrong exchange phase (a hang: the ctest
 *   timeout; or a wrong sum: the tests' fp64 check and their second run for
 *   the same bits); the 128-register kernel scheduled worse than the
 *   126-register NR = 3 one (NR is one constant below).
 * Numerics: bulk_ex's per-row arithmetic (f32; a thread's 16 terms of D in
 *   order, a warp's butterfly, the fold of 8 C warp sums in index order and
 *   a butterfly; dw terms fmaf(dy rstd, x) over at most 256 rows in order a
 *   partial, no warp adds), within the op's bound (rmsnorm_bwd.c). dx and dw
 *   may differ from bulk_q's in the last bits (another tree for D), never
 *   from run to run. x, dy and w widened one instruction an element (the
 *   same values as sl_dt's loads).
 * Limits: aligned launches (norm_fwd_aligned: every buffer on 16 bytes,
 *   cols and ld whole vectors), bf16 or f16 rows with w in the rows' dtype,
 *   rows of at most 8 x 512 vectors (32768 columns), sm_90 code on a
 *   cluster-capable device; else SL_ERR_UNSUPPORTED with the reason.
 *   Not the public function's pick.
 * Measured (H200, twenty-first session, bench/results/h200-norm-bwd-rcl-2026-11-29.md;
 *   bf16, fraction of the copy, against the public function in the same
 *   process): 4096 x 32768 0.854-0.859 against 0.824-0.832 (3.2-3.5%
 *   less time), 8192 x 16384 0.867-0.868 against 0.853-0.860 (1-1.6%),
 *   32768 x 16384 0.878-0.881 against the public function's (bulk)
 *   0.920-0.923 (slower), 32768 x 4096 0.858-0.862 against 0.922-0.934
 *   (slower). Fractions: inside the prediction's ranges but for 32768 x
 *   4096 (under); speed against the public function under its prediction
 *   at 32768 x 16384 and 32768 x 4096. One call, so no pick.
 */
#include "norm_bwd_rcl.cuh"
#include "rmsnorm_bwd.cuh"

enum { RMSB_RCL_NR = 4 /* rows of x and dy in registers: the current one and three in flight */ };

template <int DT>
static __global__ void __launch_bounds__(RCL_T, RCL_MINB) rms_bwd_regs_cl(norm_bwd_geo g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    norm_bwd_rcl<DT, NORM_RMS, RMSB_RCL_NR>(g);
#else
    (void)g;
    __trap(); /* the launcher runs this kernel only from sm_90 code */
#endif
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_regs_cl(const sl_args *a)
{
    static const char *who = "regs_cl";
    static int code_cache[SL_MAX_DEVICES];
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_bwd_cfg c = {};
    if ((st = norm_bwd_rcl_plan(a, SL_RMSB_W, "rmsnorm_bwd", who, (const void *)rms_bwd_regs_cl<SL_BF16>,
                                (const void *)rms_bwd_regs_cl<SL_F16>, code_cache, &c)) != SL_OK)
        return st;
    return norm_bwd_run_rms(a, &c, who);
}
