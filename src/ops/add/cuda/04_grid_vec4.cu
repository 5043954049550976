/*
 * Rung 4: grid-stride + float4 (ILP = 1 of grid_vec4_ilp.cuh).
 *
 * Source: seed 000, "Kernels Implemented" ('gridVectorizedVectorSum') and
 * "Naive vs Grid Stride + Vectorized".
 * Change from rung 3: a persistent grid (SMs x resident blocks) walks the
 * float4 body in grid-sized steps.
 *
 * Expectation: the seed measured 82% fewer instructions than naive and the
 * same time. Each thread has one float4 per input in flight per iteration,
 * 64 KiB per SM at full occupancy, and the loop's index update sits between
 * one iteration's stores and the next one's loads. Expect vec4's bandwidth,
 * give or take a percent.
 */
#include "add.cuh"
#include "grid_vec4_ilp.cuh"

template <int DT, class OP> using rung_grid_vec4 = rung_grid_vec_ilp<1, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_add_grid_vec4, rung_grid_vec4, sl_k_add)
