/*
 * dot rung 1: naive. A persistent grid of 256-thread blocks walks the arrays
 * grid-stride, one element (4 or 8 bytes) per input per step; each thread
 * sums its products in fp64, the block combines its threads through a
 * shared-memory tree (dot.cuh), and the last block sums the blocks.
 * BabelStream 5.0's CUDA dot is the same shape with 1024-thread blocks and
 * 4 blocks per SM, and sums the blocks' partials on the host after a copy.
 *
 * Expectation: a read-only stream with one 4-byte load per input in flight
 * per thread: 2048 threads x 8 B = 16 KiB per SM in f32, well under the
 * ~48 KiB per SM Little's law asks on the H200 (docs/probes.md): latency
 * bound, ~60-70% of the read ceiling in f32, better in f64 (16 B per step).
 */
#include "dot.cuh"

enum { NAIVE_BLOCK = 256 };

template <class T>
static __global__ void __launch_bounds__(NAIVE_BLOCK) dot_naive(const T *a, const T *b, size_t n, dot_ws w, T *r)
{
    double s = 0.0;
    const size_t stride = (size_t)gridDim.x * NAIVE_BLOCK;
    for (size_t i = (size_t)blockIdx.x * NAIVE_BLOCK + threadIdx.x; i < n; i += stride)
        s = fma((double)a[i], (double)b[i], s);
    grid_finish<NAIVE_BLOCK>(block_sum<NAIVE_BLOCK>(s), w, r);
}

template <class T> static sl_status launch_naive(const sl_args *x)
{
    static sl_grid_cache cache;
    int grid = 0;
    sl_status st = dot_grid(&cache, (const void *)dot_naive<T>, NAIVE_BLOCK, &grid);
    if (st == SL_OK)
        st = dot_zero_ticket(x);
    if (st != SL_OK)
        return st;
    dot_naive<T><<<grid, NAIVE_BLOCK, 0, (cudaStream_t)x->stream>>>((const T *)x->buf[0], (const T *)x->buf[1], x->n,
                                                                   dot_workspace_of(x), (T *)x->buf[2]);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_dot_naive(const sl_args *x)
{
    sl_status st = dot_check_args(x);
    if (st != SL_OK)
        return st;
    return x->dtype == SL_F64 ? launch_naive<double>(x) : launch_naive<float>(x);
}

extern "C" sl_status sl_cuda_dot_naive_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F64 ? (const void *)dot_naive<double> : (const void *)dot_naive<float>,
                                NAIVE_BLOCK, 0, out);
}
