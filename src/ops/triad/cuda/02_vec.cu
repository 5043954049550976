/*
 * triad rung 2: one 16-byte vector per input per thread (ew_rungs.cuh),
 * with a scalar head that aligns the body, the tail in parallel, and the
 * scalar fallback for arrays that differ modulo 16 bytes.
 *
 * Expectation: add's vec4 reached 1.00 x CUB on the H200 at 2^28; the
 * same per-SM bytes in flight here (2 read + 1 write streams), so at the DRAM roof.
 */
#include "triad.cuh"
#include "ew_rungs.cuh"

SL_EW_LAUNCHER(sl_cuda_triad_vec, rung_vec, sl_k_triad)
