/*
 * layernorm rung 7 (lean4): rmsnorm's lean4 (rmsnorm/cuda/07_lean4.cu) in
 * MODE NORM_LN: lean's team sums with 4 vectors a thread beyond the warp
 * teams (a block of 128-1024 threads per row up to 4096 vectors, then
 * clusters of 4 or 8 blocks of 512), 64 registers, 1024 threads a SM.
 *
 * Why: at N = 65536 bf16 regs and lean hold 8 vectors a thread in 80
 * registers and spill (ptxas: 72-80 bytes stored, 250-270 loaded a thread
 * in bf16); 4 vectors a thread fit 64 registers without spills.
 *
 * Floor: 8192 x 65536 bf16, 2 GiB, ~0.70 ms on an H100. Expectation: from
 * 0.38 of the copy to rmsnorm's lean4 less the second sum's barrier: ~0.8.
 * At N = 4096 (a block of 128, 8 a SM): about lean's.
 *
 * Measured (one H100, bench/results/h100-norms-fwd-2026-11-26c.md): 0.910
 * at 32768 x 4096 (lean 0.818: the bytes in flight, 64 KiB a SM against
 * 40, mattered more than the barriers), but 0.512 at 8192 x 65536 (lean
 * 0.599) and 0.50 at 64 x 4096 (lean 0.65). The API's pick up to 4096
 * vectors at >= 4 rows a SM.
 */
#include "ln_regs.cuh"

extern "C" sl_status sl_cuda_layernorm_lean4(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_LEAN4, "lean4");
}
