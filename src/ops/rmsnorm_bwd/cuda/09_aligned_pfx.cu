/*
 * rmsnorm backward rung 10 (aligned_pfx): aligned_pf (06_aligned_pf.cu)
 * with x, dy and w widened from bf16 / f16 to f32 in one instruction an
 * element (common/norm_bwd.cuh's FX: norm_fwd.cuh's norm_elx, a shift or
 * a mask for bf16) where sl_dt's load takes two for a bf16 pair's high
 * half (PRMT, then a shift): the warp teams at 65-128 16-byte vectors and
 * the pair teams at 129-256 (2 blocks of 256 a SM, as aligned_pf);
 * aligned_pf's kernels at <= 64 vectors, aligned's form beyond 256. The
 * same values bit for bit. Aligned launches only (else
 * SL_ERR_UNSUPPORTED).
 *
 * Why (docs/ladder.md, "The norms' backwards, tenth session"): the bulk
 * kernels' times are in the ratio of their instruction counts; a pair
 * warp's row at 2048 bf16 is ~819 SASS instructions, 105 of them PRMTs of
 * the widening.
 *
 * Expectation: ~723 instructions a warp and row (-12%, SASS), the same
 * 64 KiB a SM in flight and 123-127 registers: a gain only where the row's
 * issue, not DRAM, sets the pace; at 32768 x 2048 (1.7 instructions a
 * cycle a SM for aligned_pf) 0.865 -> 0.86-0.89. Unmeasured.
 */
#include "norm_bwd.cuh"
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_aligned_pfx(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_ALIGNED_PFX, "aligned_pfx");
}
