/*
 * layernorm rung 9 (aligned): rmsnorm's aligned rung (rmsnorm/cuda/
 * 09_aligned.cu) in MODE NORM_LN: lean4's blocks up to 4096 vectors,
 * lean's clusters beyond, aligned rows only, whole 16-byte vectors without
 * the edge masks (the variance loop's per-element column test goes too).
 * Expectation and why: rmsnorm's; here the masks cost most (the decode
 * rung, maskless, 0.196 ms at 32768 x 4096 against lean4's 0.202).
 */
#include "ln_regs.cuh"

extern "C" sl_status sl_cuda_layernorm_aligned(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_ALIGNED, "aligned");
}
