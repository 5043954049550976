/*
 * Rung 1: naive. One thread per element, 256 threads per block,
 * ceil(n / 256) blocks.
 *
 * Source: seed 000, "Kernels Implemented" ('vectorSum').
 * Change from the seed: the index is 64-bit, so n >= 2^31 works (the seed's
 * int index overflows there).
 *
 * Expectation: a warp's 32 consecutive 4-byte loads are one fully used
 * 128-byte line, so the access is perfectly coalesced. Each thread has only
 * two 4-byte loads in flight, though: at 2048 resident threads per SM that is
 * 16 KiB per SM, below the ~32-48 KiB per SM that Little's law asks of an
 * H100/H200 (bandwidth x latency / SMs), so on Hopper we expect it latency
 * bound at ~75-80% of the float4 rungs. On the seed's RTX 4060 (272 GB/s)
 * the same bytes in flight were enough and every rung tied.
 */
#include "add.cuh"
#include "ew_rungs.cuh"

SL_EW_LAUNCHER(sl_cuda_add_naive, rung_naive, sl_k_add)
