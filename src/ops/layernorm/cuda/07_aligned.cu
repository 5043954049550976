/*
 * layernorm rung 9 (aligned): rmsnorm's aligned rung (rmsnorm/cuda/
 * 09_aligned.cu) in MODE NORM_LN: lean4's blocks up to 4096 vectors,
 * lean's clusters beyond, aligned rows only, whole 16-byte vectors without
 * the edge masks (the variance loop's per-element column test goes too).
 * Expectation and why: rmsnorm's; here the masks cost most (the decode
 * rung, maskless, 0.196 ms at 32768 x 4096 against lean4's 0.202).
 *
 * Eighth session: the launch bounds raised to what compiles without
 * spills (common/norm_fwd.cuh, at<>'s enum; bf16 / f16 with w and b in
 * the rows' dtype, ptxas -v sm_90). Why: on an H200 this rung ran 0.932 /
 * 0.959 / 0.898 of the copy at 32768 x 1024 / 4096 and 8192 x 16384 where
 * rmsnorm, the same teams and bytes with one team sum, ran 0.963 / - /
 * 0.970 with the same rows in flight or more; the SASS of every one of
 * these kernels issues all of a thread's x loads before the first use, so
 * the second sum's barrier, the division and the serial store loop (w and
 * b loaded per vector, after the branch) are time a block holds its
 * registers with nothing in flight; more blocks an SM cover it. Rows in
 * flight an SM, before -> after (x bytes):
 *   N 1024  a warp a row, 4 vectors: 63 -> 48 registers, 4 -> 5 blocks of
 *           256, 32 -> 40 rows, 64 -> 80 KiB (6 blocks spill);
 *   N 2048  8 vectors: 72 -> 64 registers, 3 -> 4 blocks, 24 -> 32 rows,
 *           96 -> 128 KiB;
 *   N 4096  a block of 128 a row: 48 -> 32 registers, 10 -> 16 rows, 80 ->
 *           128 KiB;
 *   N 8192 / 16384 / 32768  blocks of 256 / 512 / 1024: 48 -> 32
 *           registers, 5 -> 8 / 2 -> 4 / 1 -> 2 rows, 80 / 64 / 64 -> 128
 *           KiB; the warp teams of 1-2 vectors 8 blocks of 256 (32
 *           registers) instead of 6 / 5.
 * f32 rows or f32 weights keep the earlier bounds (they spill at 32).
 * Expectation (before a run): 0.95-0.965 / 0.97-0.985 / 0.96-0.98 of the
 * copy at the three shapes above; docs/ladder.md, eighth session.
 */
#include "ln_regs.cuh"

extern "C" sl_status sl_cuda_layernorm_aligned(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_ALIGNED, "aligned");
}
