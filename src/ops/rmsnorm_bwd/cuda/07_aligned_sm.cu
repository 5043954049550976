/*
 * rmsnorm backward rung 8 (aligned_sm): aligned_pf's pair teams
 * (06_aligned_pf.cu: two warps a row, four rows a block of 256, 4 vectors
 * a thread) at 129-256 16-byte vectors in regs_sm's form instead of
 * regs_pf's: no prefetch, so ~half the registers (the row once, not this
 * row and the next) and 4 blocks of 256 a SM where regs_pf holds 2; the
 * aligned form (04_aligned.cu) at every other row length. Aligned launches
 * only (else SL_ERR_UNSUPPORTED). Built beside aligned_pf so that one
 * device call decides between the two ways of putting more of x and dy in
 * flight at N = 2048 (docs/ladder.md, "The norms' backwards, eighth
 * session").
 * Expectation: 4 x 256 threads x 4 vectors x 2 x 16 bytes = 128 KiB a SM
 * in flight while the rows load (aligned: 32 KiB), nothing of a team's
 * between its sum and its next row (the other 15 teams of the SM cover
 * it); at 4096 columns regs_sm's 4 blocks of 2 vectors (64 KiB) ran 0.94
 * of the copy on an H200. Measured on an H200 at 32768 x 2048 bf16
 * (bench/results/h200-norms-2026-11-27.md): 0.864 of the copy, level with
 * aligned_pf's 0.865 (aligned 0.807).
 */
#include "norm_bwd.cuh"
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_aligned_sm(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_ALIGNED_SM, "aligned_sm");
}
