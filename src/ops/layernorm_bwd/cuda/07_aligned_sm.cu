/*
 * layernorm backward rung 8 (aligned_sm): rmsnorm_bwd's aligned_sm
 * (rmsnorm_bwd/cuda/07_aligned_sm.cu) in MODE NORM_LN: pair teams (two
 * warps a row, four rows a block of 256, 4 vectors a thread) at 129-256
 * 16-byte vectors in regs_sm's form (no prefetch), the aligned form at
 * every other row length; aligned launches only (else
 * SL_ERR_UNSUPPORTED).
 * Expectation: the dw and db partials (64 KiB a block at 16-bit rows)
 * allow 3 blocks of 256 a SM (bound 3, <= 80 registers): 96 KiB of x and
 * dy in flight while the rows load, against aligned's 24 KiB (3 blocks of
 * 1 vector) and aligned_pf's 64 KiB held through the sums. Measured on an
 * H200 at 32768 x 2048 bf16 (bench/results/h200-norms-2026-11-27.md):
 * 0.827 of the copy, behind aligned_pf's 0.877 (docs/ladder.md, ninth
 * session).
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

extern "C" sl_status sl_cuda_layernorm_bwd_aligned_sm(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_ALIGNED_SM, "aligned_sm");
}
