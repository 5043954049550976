/*
 * Rung 6: grid-stride + float4 + ILP = 4.
 *
 * Source: seed 000, "Kernels Implemented" ('ILP4VectorizedGridVectorSum')
 * and "ILP=4 vs Naive".
 * Change from rung 5: four float4 per input in flight per thread (128 bytes),
 * the most of the seed's ladder.
 *
 * Expectation: ties rung 5 once DRAM is saturated; the seed saw LG-throttle
 * stalls here. Registers rise to 40 per thread (ptxas, sm_90; the seed had
 * 40 on sm_89), so only 6 blocks of 256 fit per SM (1536 threads, 75%
 * occupancy): 6 x 256 x 128 B = 192 KiB in flight per SM, still plenty.
 * Measured on the H200: 0.93 x CUB, the same as rungs 4 and 5, so the
 * grid-stride loop, not bytes in flight, is what holds rungs 4-6 back.
 */
#include "add.cuh"
#include "grid_vec4_ilp.cuh"

template <int DT, class OP> using rung_ilp4 = rung_grid_vec_ilp<4, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_add_ilp4, rung_ilp4, sl_k_add)
