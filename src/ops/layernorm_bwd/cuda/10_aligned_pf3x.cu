/*
 * layernorm backward rung 11 (aligned_pf3x): rmsnorm_bwd's aligned_pf3x
 * (rmsnorm_bwd/cuda/10_aligned_pf3x.cu) in MODE NORM_LN: aligned_pf3's
 * warp and pair teams at 65-256 16-byte vectors, 3 blocks of 256 a SM (80
 * registers), with aligned_pfx's one-instruction widening of x, dy and w;
 * aligned_pf's kernels at <= 64 vectors, aligned's form beyond 256.
 * Aligned launches only (else SL_ERR_UNSUPPORTED).
 *
 * Why: whether more rows in flight and fewer instructions a row add up
 * (docs/ladder.md, tenth session).
 *
 * Expectation: ~996 instructions a warp and row at 2048 bf16 (aligned_pf3:
 * ~1099), 88 / 96 bytes of spill stores / loads a thread (aligned_pf3: 96
 * / 104), 3 x 64 KiB of dw and db partials a SM leaving ~28 KiB of L1: as
 * aligned_pf3, a loss is as likely as a gain. Unmeasured.
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

extern "C" sl_status sl_cuda_layernorm_bwd_aligned_pf3x(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_ALIGNED_PF3X, "aligned_pf3x");
}
