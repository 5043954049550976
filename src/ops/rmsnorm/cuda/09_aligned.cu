/*
 * rmsnorm rung 9 (aligned): lean4's blocks (128-1024 threads, 4 vectors a
 * thread) up to 4096 vectors and lean's clusters of 256 beyond, for
 * aligned rows only (every buffer on 16 bytes, cols a multiple of the
 * vector: else SL_ERR_UNSUPPORTED): each vector whole or absent, one
 * 16-byte load or store without the edge masks (common/norm_fwd.cuh,
 * NORM_AL_ROWS); w loaded where lean loads it, after the sum (L2-resident
 * when the rows are many).
 *
 * Why: the decode rung (08_decode.cu), which has no masks either, ran
 * layernorm at 32768 x 4096 in 0.196 ms against the API's lean4 0.202
 * (one H100, h100-norms-decode-2026-11-26g.md), with fewer threads a SM:
 * the masks' instructions (per element in layernorm's variance loop) cost
 * issue slots that the loads need.
 *
 * Expectation: rmsnorm at 4096 unchanged (0.99 of the copy already);
 * layernorm at 4096 from 0.905 toward rmsnorm's 0.99; at 65536 (lean's
 * clusters) a few %.
 *
 * Eighth session: the launch bounds raised to what compiles without
 * spills in every dtype pair (common/norm_fwd.cuh, at<>'s enum; ptxas -v
 * sm_90): the warp teams of 4 vectors (bf16 N 1024) 48 -> 40 registers,
 * 5 -> 6 blocks of 256, 40 -> 48 rows, 80 -> 96 KiB of x in flight an
 * SM; of 2 vectors 6 -> 8 blocks; the blocks of 128-1024 threads 44-48 ->
 * 32 registers, 1024-1280 -> 2048 threads an SM (N 16384 bf16: 2 -> 4
 * rows, 64 -> 128 KiB). Expectation (before a run, H200, bf16): 0.963 -> 0.97-
 * 0.98 of the copy at 32768 x 1024, 0.970 -> 0.98-0.99 at 8192 x 16384.
 */
#include "regs.cuh"

extern "C" sl_status sl_cuda_rmsnorm_aligned(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_ALIGNED, "aligned");
}
