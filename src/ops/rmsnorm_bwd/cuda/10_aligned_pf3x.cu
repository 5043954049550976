/*
 * rmsnorm backward rung 11 (aligned_pf3x): aligned_pf3 (08_aligned_pf3.cu:
 * aligned_pf's warp teams at 65-128 16-byte vectors and pair teams at
 * 129-256 bounded to 3 blocks of 256 a SM, 80 registers) with aligned_pfx's
 * widening (09_aligned_pfx.cu: x, dy and w to f32 in one instruction an
 * element); aligned_pf's kernels at <= 64 vectors, aligned's form beyond
 * 256. Aligned launches only (else SL_ERR_UNSUPPORTED).
 *
 * Why: the two changes act on different limits (bytes and rows in flight
 * a SM; instructions a row), and one device call should show whether they
 * add (docs/ladder.md, "The norms' backwards, tenth session").
 *
 * Expectation: 96 KiB a SM in flight, ~771 instructions a warp and row at
 * 2048 bf16 (aligned_pf3: ~824), 72-76 bytes of spills a thread as
 * aligned_pf3 (ptxas -v); at 32768 x 2048 the better of aligned_pf3 and
 * aligned_pfx or up to 0.01-0.02 above it. Unmeasured.
 */
#include "norm_bwd.cuh"
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_aligned_pf3x(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_ALIGNED_PF3X, "aligned_pf3x");
}
