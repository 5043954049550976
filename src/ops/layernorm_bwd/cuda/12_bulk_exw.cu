/*
 * layernorm backward rung 13 (bulk_exw): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its NB_EXW configuration, launched by
 * 05_bulk.cu's sl_cuda_layernorm_bwd_bulk_rung: bulk_ex (11_bulk_ex.cu)
 * with w off the shared-memory path of the rows. Each thread takes its two
 * 16-byte vectors of 16-bit w (16 columns) into 8 registers once, after the
 * chunk's bulk copy, and widens them at use in both passes (one instruction
 * an element, as bulk). f32 w (beside 16-bit or f32 rows) is read raw from
 * shared memory, bulk's bytes. bulk_ex's one-sided sums, rstd and mean a
 * row ahead, four-operation dx and 1 / N once a launch are kept; dx, dw, db
 * and the fold orders are bulk_ex's (the same bits: the widening is exact).
 *
 * Why (docs/ladder.md, "The norms' backwards, thirteenth session"): bulk_ex
 * saved 12% of bulk's instructions a row and gained only 3-5% (0.773 ->
 * 0.810 of the copy at 8192 x 16384 bf16, H200). ncu: its warps wait
 * longer between issues (11.4 -> 12.2 cycles) and the busiest unit moved
 * from DRAM to another at 68%, with rmsnorm's twin stalled on shared memory
 * (MIO). bulk_ex reads w as f32 in both passes: 16 bytes of shared memory
 * an element a row at 16-bit. Here 8 (x and dy): 8 LDS.128 a thread a row
 * where bulk_ex issues 16, for the widening back, ~486 instructions a
 * warp's row against bulk_ex's ~476 (SASS, bf16, the same count for both).
 *
 * Which design, and why: w widened into registers (rmsnorm_bwd's
 * bulk_exw) does not fit here. bulk_ex's layernorm is at the bound of 64
 * registers that two blocks of 512 a SM need (dw and db: 32 accumulators a
 * thread); w's 16 floats more spill under it (ptxas -v, sm_90: 32 bytes of
 * spill stores, 28 of loads, LDL / STL of accumulators in the row loop), or
 * take 80 registers without it: one block a SM, half of the 128 KiB of x
 * and dy a SM in flight and half the warps to cover each row's waits. w 16-
 * bit in shared memory, widened at use (12 bytes an element), fits but
 * keeps half of w's reads: ~508 instructions a row, 12 LDS.128. w 16-bit in
 * registers fits too, 64 registers with no spills at every 16-bit pair, and
 * reads none: that is this rung. Shared memory 80 KiB a block at 16-bit
 * (bulk_ex 96), 2 blocks a SM as before.
 * Expectation (unmeasured): H200, bf16, of the copy kernel: 0.82-0.86 at
 * 8192 x 16384, 0.82-0.87 at 8192 x 65536, 0.74-0.78 at 4096 x 32768 and
 * 0.72-0.76 at 32768 x 4096 (bulk_ex 0.810 / 0.813 / 0.732 / 0.721).
 * Limits: as bulk; else SL_ERR_UNSUPPORTED.
 */
#include "layernorm_bwd.h"

extern "C" sl_status sl_cuda_layernorm_bwd_bulk_exw(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_bulk_rung(a, 2, "bulk_exw");
}
