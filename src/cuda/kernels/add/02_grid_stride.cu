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
#include "../../elementwise.cuh"

enum { GS_BLOCK = 256 };

template <int DT, class OP>
static __global__ void ew_grid_stride(OP op, const typename sl_dt<DT>::raw *a, const typename sl_dt<DT>::raw *b,
                                      typename sl_dt<DT>::raw *c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        sl_apply1<DT>(op, a, b, c, i);
}

template <int DT, class OP> struct rung_grid_stride {
    typedef typename sl_dt<DT>::raw raw;
    static sl_status launch(const sl_args *x, const OP &op)
    {
        static sl_grid_cache cache;
        if (x->n == 0)
            return SL_OK;
        int grid = 0;
        sl_status st = sl_cuda_persistent_grid(&cache, (const void *)ew_grid_stride<DT, OP>, GS_BLOCK, 0, &grid);
        if (st != SL_OK)
            return st;
        ew_grid_stride<DT, OP><<<grid, GS_BLOCK, 0, (cudaStream_t)x->stream>>>(op, (const raw *)x->a,
                                                                                (const raw *)x->b, (raw *)x->c, x->n);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_grid_stride<DT, OP>, GS_BLOCK, 0, out);
    }
};

SL_EW_LAUNCHER(sl_cuda_add_grid_stride, rung_grid_stride, sl_op_add)
