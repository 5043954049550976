/*
 * Rung 5: grid-stride + float4 + ILP = 2.
 *
 * Source: seed 000, "Kernels Implemented" ('ILP2VectorizedGridVectorSum')
 * and "Testing the Theory".
 * Change from rung 4: two float4 per input are loaded before the first add
 * (4 independent 16-byte loads in flight per thread), with bounds checked
 * per access.
 *
 * Expectation: twice the bytes in flight per thread at a few more registers.
 * If rung 4 was short of bytes in flight this gains; if it was already at
 * the DRAM roof it ties (the seed: 0.16% apart on an RTX 4060).
 */
#include "add.cuh"
#include "grid_vec4_ilp.cuh"

template <int DT, class OP> using rung_ilp2 = rung_grid_vec_ilp<2, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_add_ilp2, rung_ilp2, sl_k_add)
