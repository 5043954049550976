/*
 * rmsnorm backward rung 7 (aligned_pf): the aligned rung (04_aligned.cu)
 * with regs_pf's persistent prefetch at every row of <= 256 16-byte
 * vectors (common/norm_bwd.cuh, NORM_BWD_ALIGNED_PF): the next row's x, dy
 * and rstd loaded before this row's sum, the dw partials in shared memory;
 * at 129-256 vectors (bf16 / f16 N = 1032-2048, f32 516-1024) pair teams,
 * two warps a row and four rows a block of 256, 4 vectors a thread, where
 * aligned runs regs with a block of 256 a row at 1 vector a thread. Up to
 * 128 vectors it is aligned's regs_pf warp-team kernel (also for f32 rows
 * and below 1024 rows, where aligned takes regs); beyond 256 aligned's
 * form. Aligned launches only (else SL_ERR_UNSUPPORTED).
 *
 * Why (docs/ladder.md, "The norms' backwards, ninth session"): at N =
 * 2048 on an H200 the aligned rung ran 0.805 of the copy with 32 KiB of x
 * and dy in flight a SM (4 blocks of 256 threads x 1 vector x 2 x 16
 * bytes), and only between a row's loads and its sum.
 *
 * Expectation: 2 blocks of 256 (bound 2, <= 128 registers) x 4 vectors x
 * 2 x 16 bytes = 64 KiB a SM in flight through the sums and the dx
 * stores, as at N = 1024 (regs_pf's warp teams, 0.847 there); the pair's
 * sum is two butterflies and one named barrier of 64 threads (rmsnorm one
 * value, layernorm two through the same barrier), and the partial rows
 * fall from 3-4 to 2 a SM. Measured on an H200 at 32768 x 2048 bf16
 * (bench/results/h200-norms-2026-11-27.md): 0.865 of the copy against
 * aligned's 0.807; the public function's form there.
 */
#include "norm_bwd.cuh"
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_aligned_pf(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_ALIGNED_PF, "aligned_pf");
}
