/*
 * rmsnorm backward rung 12 (bulk_ex): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its EX configuration, launched by
 * 05_bulk.cu's sl_cuda_rmsnorm_bwd_bulk_rung: layernorm_bwd's bulk_ex
 * (layernorm_bwd/cuda/11_bulk_ex.cu) in MODE NORM_RMS: the same staging,
 * partial rows and fp64 finish as bulk (deterministic), with the row's sum
 * one-sided (common/cluster_x1.cuh: each warp's sum st.async into its slot
 * in every CTA of the cluster, one mbarrier wait, the 16 x C slots folded
 * in index order; no __syncthreads between the passes), the rstd of row
 * k + 2 copied into shared memory by thread 0 (cp.async) when it issues
 * that row's stage, w's chunk widened to f32 once in
 * shared memory and 1 / N once a launch. dx keeps bulk's three operations
 * an element, and x and dy bulk's widening (rmsnorm's, measured faster
 * than the one-instruction form in the tenth session).
 *
 * Why (docs/ladder.md, "The norms' backwards, eleventh session"): the same
 * instructions and waits a row that separate layernorm's bulk from
 * rmsnorm's weigh on rmsnorm's too: ~463 instructions a warp and row at
 * bf16 (C = 2), ~402 here (-13%; the 16-bit w's widening was two
 * instructions for a pair's high half in both passes).
 * Bytes in flight: as bulk; 96 KiB of shared memory a block at 16-bit,
 * two blocks a SM.
 * Expectation (unmeasured): H200, bf16, of the copy kernel: 0.88-0.94 at
 * 8192 x 16384, 0.92-0.97 at 8192 x 65536 (bulk 0.866 / 0.911).
 * Limits: as bulk; else SL_ERR_UNSUPPORTED.
 */
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_bulk_ex(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_bulk_rung(a, 1, "bulk_ex");
}
