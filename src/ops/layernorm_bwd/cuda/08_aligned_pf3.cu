/*
 * layernorm backward rung 9 (aligned_pf3): rmsnorm_bwd's aligned_pf3
 * (rmsnorm_bwd/cuda/08_aligned_pf3.cu) in MODE NORM_LN: aligned_pf's
 * warp teams (65-128 16-byte vectors) and pair teams (129-256) with the
 * launch bound at 3 blocks of 256 a SM instead of 2; aligned_pf's kernels
 * at <= 64 vectors, aligned's form beyond 256. Aligned launches only (else
 * SL_ERR_UNSUPPORTED).
 *
 * Why: aligned_pf ran 0.877 of the copy at 32768 x 2048 bf16 on an H200
 * with 64 KiB of the next rows' x and dy in flight a SM (2 blocks of 256,
 * 128 registers), 0.819 at 32768 x 1024 (docs/ladder.md, tenth session).
 *
 * Expectation: 96 KiB a SM in flight (3 x 256 threads x 4 vectors x 2 x
 * 16 bytes) in 80 registers, at a price: ptxas spills 36-108 bytes a
 * thread, and the dw and db partials take 3 x 64 KiB of shared memory at
 * 16-bit rows, leaving ~28 KiB of L1 for w (4 KiB at 2048 bf16) and the
 * spills of 768 threads (~55-90 KiB): some spill traffic goes to L2.
 * Unmeasured.
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

extern "C" sl_status sl_cuda_layernorm_bwd_aligned_pf3(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_ALIGNED_PF3, "aligned_pf3");
}
