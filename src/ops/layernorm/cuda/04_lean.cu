/*
 * layernorm rung 6 (lean): rmsnorm's lean (rmsnorm/cuda/06_lean.cu) in
 * MODE NORM_LN: the same teams, one block barrier per team sum instead of
 * two (alternating shared-memory slots: common/norm_fwd.cuh, LEAN), so two
 * a row instead of four, and with a cluster two full cluster barriers and
 * a deferred wait instead of four full ones; the register cap for
 * occupancy (6 blocks of 256 a SM at 2 vectors a thread, 4 at 4, 3 at 8
 * where 80 registers already spill).
 *
 * Numerics unchanged: the same two-pass mean and variance (the sum, then
 * the squared deviations from the registers), the same order: the same
 * bits as regs.
 *
 * Why: regs measured 0.75 of the copy at 32768 x 4096 bf16 (H100) where
 * rmsnorm's regs, the same teams and bytes, reached 0.96: a layernorm row
 * waits on two team sums, four block barriers, before its first store,
 * with 4 blocks (64 registers) a SM to cover the wait.
 *
 * Floor: 32768 x 4096 bf16, 512 MiB + 256 KiB, ~0.17 ms at an H100's
 * ~3.2 TB/s copy. Expectation: half the barriers and 1.5x the blocks a SM:
 * from 0.75 to ~0.90-0.95 of the copy at N = 4096; at 65536 (a cluster of
 * 4 blocks of 256, 8 vectors, spilling) from 0.38 to ~0.5.
 *
 * Measured (one H100, bench/results/h100-norms-fwd-2026-11-26c.md): 0.818
 * at 32768 x 4096 (regs 0.748; lean4 0.910), 0.599 at 8192 x 65536 (regs
 * 0.377; 80 registers, 4 bytes spilled), 0.65 at 64 x 4096 (unchanged).
 * The API's pick at 65536 and at few rows.
 */
#include "ln_regs.cuh"

extern "C" sl_status sl_cuda_layernorm_lean(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_LEAN, "lean");
}
