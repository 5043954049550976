/*
 * layernorm rung 8 (decode): rmsnorm's decode rung (rmsnorm/cuda/
 * 08_decode.cu) in MODE NORM_LN: lean's teams for aligned rows of up to
 * 1024 vectors, whole 16-byte vectors without edge masks, with w and b
 * loaded into registers beside x, before the two team sums, instead of in
 * the store loop (common/norm_fwd.cuh, DEC).
 *
 * Why and floor: rmsnorm's. With few rows (L2 cold) the late loads of w
 * and b are a DRAM round trip after the second sum; here they overlap x's.
 * Expectation: lean's 5.16 us at 64 x 4096 (L2 flushed, graph replay:
 * h100-row-peers-final-2026-11-26c.md) less one DRAM round trip, ~4.3 us.
 * The API's pick where the rows are fewer than the SMs.
 */
#include "ln_regs.cuh"

extern "C" sl_status sl_cuda_layernorm_decode(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_DECODE, "decode");
}
