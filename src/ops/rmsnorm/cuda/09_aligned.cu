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
 */
#include "regs.cuh"

extern "C" sl_status sl_cuda_rmsnorm_aligned(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_ALIGNED, "aligned");
}
