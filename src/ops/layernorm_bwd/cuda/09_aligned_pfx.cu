/*
 * layernorm backward rung 10 (aligned_pfx): rmsnorm_bwd's aligned_pfx
 * (rmsnorm_bwd/cuda/09_aligned_pfx.cu) in MODE NORM_LN: aligned_pf's warp
 * teams (65-128 16-byte vectors) and pair teams (129-256), 2 blocks of 256
 * a SM, with x, dy and w widened to f32 in one instruction an element (a
 * shift or a mask for bf16) instead of two for a bf16 pair's high half;
 * aligned_pf's kernels at <= 64 vectors, aligned's form beyond 256. The
 * same values bit for bit. Aligned launches only (else
 * SL_ERR_UNSUPPORTED).
 *
 * Why: aligned_pf at 32768 x 2048 bf16 ran 0.877 of the copy on an H200
 * issuing ~2.1 instructions a cycle a SM (~1036 a warp and row), near the
 * ~2.5 the bulk kernels reach (docs/ladder.md, tenth session).
 *
 * Expectation: ~940 instructions a warp and row (-9%, SASS), 127
 * registers, no spills, the same 64 KiB a SM in flight: 0.877 -> 0.88-0.92
 * at 32768 x 2048. Unmeasured.
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

extern "C" sl_status sl_cuda_layernorm_bwd_aligned_pfx(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_ALIGNED_PFX, "aligned_pfx");
}
