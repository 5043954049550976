/*
 * layernorm backward rung 7 (aligned_pf): rmsnorm_bwd's aligned_pf
 * (rmsnorm_bwd/cuda/06_aligned_pf.cu) in MODE NORM_LN: regs_pf's
 * persistent prefetch in the AL kernel at every row of <= 256 16-byte
 * vectors, pair teams (two warps a row, four rows a block of 256, 4
 * vectors a thread) at 129-256; beyond, aligned's form. Aligned launches
 * only (else SL_ERR_UNSUPPORTED).
 * Why: at N = 2048 on an H200 aligned ran regs (a block of 256 a row, 1
 * vector a thread, 3 blocks a SM at 72 registers: 24 KiB of x and dy in
 * flight) at 0.656 of the copy, below masked regs_pf's block-of-64 teams
 * (0.688), which write a partial row a team (8+ a SM).
 * Expectation: 64 KiB a SM in flight through both sums (one named barrier
 * of 64 threads for the two) and the stores; two partial rows (dw, db) a
 * block and round, 2 blocks a SM. Measured on an H200 at 32768 x 2048 bf16
 * (bench/results/h200-norms-2026-11-27.md): 0.877 of the copy against
 * aligned's 0.653 (docs/ladder.md, ninth session); the public function's
 * form there.
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

extern "C" sl_status sl_cuda_layernorm_bwd_aligned_pf(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_ALIGNED_PF, "aligned_pf");
}
