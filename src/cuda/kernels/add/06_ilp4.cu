/*
 * Rung 6: grid-stride + float4 + ILP = 4.
 *
 * Source: seed 000, "Kernels Implemented" ('ILP4VectorizedGridVectorSum')
 * and "ILP=4 vs Naive".
 * Change from rung 5: four float4 per input in flight per thread (128 bytes),
 * the most of the seed's ladder.
 *
 * Expectation: ties rung 5 once DRAM is saturated; the seed saw LG-throttle
 * stalls here. Registers rise (the seed: 40 per thread) but 2048 threads per
 * SM still fit under Hopper's 64 K registers at <= 32 each... or not: check
 * `streamlab list` for the count and the resident blocks.
 */
#include "grid_vec4_ilp.cuh"

static sl_grid_cache ilp4_grid;

extern "C" sl_status sl_cuda_add_ilp4(const sl_args *x)
{
    return launch_grid_vec4_ilp<4>(x, &ilp4_grid);
}

extern "C" sl_status sl_cuda_add_ilp4_attrs(sl_kernel_attrs *out)
{
    return attrs_grid_vec4_ilp<4>(out);
}
