/*
 * rmsnorm backward rung 13 (bulk_exw): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its NB_EXW configuration, launched by
 * 05_bulk.cu's sl_cuda_rmsnorm_bwd_bulk_rung: bulk_ex (11_bulk_ex.cu) with
 * w off the shared-memory path. Each thread widens its values of w (its
 * 16 columns: 2 vectors of 8 at 16-bit, 4 of 4 in f32 rows past 32768
 * columns, 2 of 4 below) to f32 once, after the chunk's bulk copy, into
 * registers; both passes of every row take w from them. bulk_ex's one-sided
 * sum, rstd a row ahead and 1 / N once a launch are kept; dx, dw and the
 * fold orders are bulk_ex's (the same bits: the widening is exact).
 *
 * Why (docs/ladder.md, "The norms' backwards, thirteenth session"): bulk_ex
 * saved 13% of bulk's instructions a row and lost 4% of its speed (0.872 ->
 * 0.834 of the copy at 8192 x 16384 bf16, H200). ncu: its warps wait 12.6
 * cycles between issues (bulk 10.7), 4.1 of them on the shared-memory (MIO)
 * scoreboard. bulk_ex reads w as f32 in both passes: 16 bytes of shared
 * memory an element a row at 16-bit (x and dy 8, w 8), where bulk reads 12.
 * Here 8, x and dy only: 8 LDS.128 a thread a row where bulk_ex issues 16,
 * and ~378 instructions a warp's row against bulk_ex's ~394 (SASS, bf16,
 * the same count for both).
 *
 * Which design, and why: the candidates were (a) w kept 16-bit in shared
 * memory and widened at use (12 bytes an element, bulk's widening back) and
 * (b) w widened once into registers (8 bytes). ptxas -v (sm_90, nvcc 13)
 * puts (b) at 63 registers at every 16-bit pair (bulk_ex: 55), 56 at f32
 * with 4 vectors a thread and 40 at 2, no spills, under the bound of 64
 * that two blocks of 512 a SM need: the occupancy, the two stages a block
 * and the 128 KiB of x and dy a SM in flight are bulk_ex's, so (b) it is.
 * w's raw chunk still lands in shared memory (read once): 80 KiB a block
 * at 16-bit (bulk_ex 96), 2 blocks a SM as before.
 * Expectation (unmeasured): H200, bf16, of the copy kernel: 0.88-0.93 at
 * 8192 x 16384, 0.92-0.95 at 8192 x 65536, 0.86-0.90 at 4096 x 32768 and
 * 0.89-0.93 at 32768 x 4096 (bulk_ex 0.834 / 0.908 / 0.851 / 0.890).
 * Limits: as bulk; else SL_ERR_UNSUPPORTED.
 */
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_bulk_exw(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_bulk_rung(a, 2, "bulk_exw");
}
