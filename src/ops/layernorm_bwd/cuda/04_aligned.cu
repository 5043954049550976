/*
 * layernorm backward rung 6 (aligned): rmsnorm_bwd's aligned rung
 * (rmsnorm_bwd/cuda/04_aligned.cu) in MODE NORM_LN: the public function's
 * form at each row length (norm_bwd_form) in its AL kernel, aligned
 * launches only (every buffer on 16 bytes, whole vectors: else
 * SL_ERR_UNSUPPORTED), each 16-byte access of x, dy, dx and w without the
 * edge masks.
 * Expectation and why: rmsnorm_bwd's; layernorm holds two accumulators
 * (dw and db) and two team sums, so its kernels sit at the register cap
 * (ptxas, sm_90: regs_sm 32-96 bytes of spills at 80 registers), where
 * freeing the masks' registers should count most: the clusters (0.63-0.67
 * of the copy at N = 16384-65536) toward rmsnorm_bwd's.
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

extern "C" sl_status sl_cuda_layernorm_bwd_aligned(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_ALIGNED, "aligned");
}
