/*
 * rmsnorm backward rung 9 (aligned_pf3): aligned_pf (06_aligned_pf.cu)
 * with the launch bound at 3 blocks of 256 a SM instead of 2 where a
 * thread holds 4 vectors of this row and 4 of the next: the warp teams at
 * 65-128 16-byte vectors (bf16 / f16 N = 520-1024) and the pair teams at
 * 129-256 (N = 1032-2048; f32 half those); aligned_pf's kernels at <= 64
 * vectors, aligned's form beyond 256. Aligned launches only (else
 * SL_ERR_UNSUPPORTED).
 *
 * Why (docs/ladder.md, "The norms' backwards, tenth session"): on an H200
 * aligned_pf ran 0.865 of the copy at 32768 x 1024 and x 2048 with 2
 * blocks of 256 a SM (128 registers), 64 KiB of the next rows' x and dy in
 * flight a SM, and a persistent grid of 1056 pairs (2048) or 2112 warps
 * (1024) for 32768 rows: 31.03 (15.5) rows a team, so the last of 32 (16)
 * steps runs with 3% (52%) of the teams.
 *
 * Expectation: ptxas fits the kernels in 80 registers with 44-84 bytes of
 * spill stores a thread (L1 hits: 3 x 32 KiB of dw partials leave ~150 KiB of
 * L1), so 3 x 256 threads x 4 vectors x 2 x 16 bytes = 96 KiB a SM in
 * flight through the sums and stores (1.5x), 1584 pairs: 20.7 rows a
 * pair, the last of 21 steps 69% full (at 1024 columns, 3168 warps: the
 * last of 11 steps 34% full, worse than aligned_pf's 52% of 16). Unmeasured.
 */
#include "norm_bwd.cuh"
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_aligned_pf3(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_ALIGNED_PF3, "aligned_pf3");
}
