/*
 * Rung 3: vectorized, one float4 (16 bytes) per thread, ceil(n / 4 / 256)
 * blocks.
 *
 * Source: seed 000, "Kernels Implemented" ('vectorizedVectorSum') and
 * "Vectorized (float4) vs Naive".
 * Change from rung 1: LDG.E.128 / STG.E.128 instead of 32-bit accesses, a
 * quarter of the memory instructions and of the threads. The seed's version
 * assumed 16-byte-aligned pointers and did its n % 4 tail serially; here a
 * scalar head (up to 3 elements) aligns the body, and head and tail run on
 * the first threads of the grid in parallel. Pointers that differ modulo 16
 * bytes cannot all be aligned by one shift: they take the scalar ILP path.
 *
 * Expectation: 32 bytes in flight per thread instead of 8, at a quarter of
 * the threads: per SM the same 64 KiB when the grid keeps every SM full.
 * On Hopper that should close most of naive's gap to the copy ceiling.
 */
#include "add.cuh"
#include "ew_rungs.cuh"

SL_EW_LAUNCHER(sl_cuda_add_vec4, rung_vec, sl_k_add)
