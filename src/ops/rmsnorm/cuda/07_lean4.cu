/*
 * rmsnorm rung 7 (lean4): the lean team sums (rung 6) with 4 vectors a
 * thread beyond the warp teams: one block of 128-1024 threads per row up
 * to 4096 vectors (N = 32768 bf16) without a cluster, then clusters of 4
 * or 8 blocks of 512; 1024 threads a SM (64 registers, 16 of them the
 * row).
 *
 * Why: at 8 vectors a thread (regs, lean) a row's team is small but its
 * registers (77-80) cap the SM at 768 threads, and a cluster of 4 blocks
 * of 256 co-schedules 4 blocks for every row; at 4 vectors a thread the
 * same 64 KiB are in flight per SM over 1024 threads, and N = 65536 is a
 * cluster of 4 blocks of 512 whose registers never approach the cap (the
 * fused add holds x and res: 32 registers, where lean's 8 vectors need 64).
 *
 * Expectation: the same floors as lean; at N = 4096 one row per block of
 * 128 (8 blocks a SM, 64 KiB in flight): about lean's; at N = 65536 within
 * a few % of lean, better for layernorm and the fused add (no spills).
 *
 * Measured (one H100, bench/results/h100-norms-fwd-2026-11-26c.md): 0.985
 * at 32768 x 4096, but 0.796 at 8192 x 65536 (lean 0.931): a cluster of
 * blocks of 512, two a SM, waits longer than lean's four of 256.
 */
#include "regs.cuh"

extern "C" sl_status sl_cuda_rmsnorm_lean4(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_LEAN4, "lean4");
}
