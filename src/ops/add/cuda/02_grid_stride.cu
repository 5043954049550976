/*
 * Rung 2: grid-stride loop over a persistent grid.
 *
 * Source: seed 000, "Kernels Implemented" ('gridStrideVectorSum') and
 * "Grid Stride vs Naive".
 * Change from rung 1: the grid is fixed at SMs x resident blocks per SM
 * (the occupancy API), and each thread walks the array in steps of the
 * whole grid. Block launches drop from n/256 to one wave.
 *
 * Expectation: the same bytes in flight per SM as naive (two 4-byte loads
 * per thread, all threads resident), plus a loop-carried index, so no
 * faster; the seed measured it 3% slower. Fewer index computations
 * (blockIdx * blockDim once per thread, not once per element).
 */
#include "add.cuh"
#include "ew_rungs.cuh"

SL_EW_LAUNCHER(sl_cuda_add_grid_stride, rung_grid_stride, sl_k_add)
