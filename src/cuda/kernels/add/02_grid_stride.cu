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
#include "../../common.cuh"

enum { GS_BLOCK = 256 };

static __global__ void add_grid_stride(const float *a, const float *b, float *c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}

static sl_grid_cache gs_grid;

extern "C" sl_status sl_cuda_add_grid_stride(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    int grid = 0;
    sl_status st = sl_cuda_persistent_grid(&gs_grid, (const void *)add_grid_stride, GS_BLOCK, 0, &grid);
    if (st != SL_OK)
        return st;
    add_grid_stride<<<grid, GS_BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float *)x->a, (const float *)x->b, (float *)x->c, x->n);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_add_grid_stride_attrs(sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs((const void *)add_grid_stride, GS_BLOCK, 0, out);
}
