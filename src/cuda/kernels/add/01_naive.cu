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
#include "../../elementwise.cuh"

enum { NAIVE_BLOCK = 256 };

template <int DT, class OP>
static __global__ void ew_naive(OP op, const typename sl_dt<DT>::raw *a, const typename sl_dt<DT>::raw *b,
                                typename sl_dt<DT>::raw *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        sl_apply1<DT>(op, a, b, c, i);
}

template <int DT, class OP> struct rung_naive {
    typedef typename sl_dt<DT>::raw raw;
    static sl_status launch(const sl_args *x, const OP &op)
    {
        if (x->n == 0)
            return SL_OK;
        unsigned grid = 0;
        sl_status st = sl_grid_for(x->n, NAIVE_BLOCK, "naive", &grid);
        if (st != SL_OK)
            return st;
        ew_naive<DT, OP><<<grid, NAIVE_BLOCK, 0, (cudaStream_t)x->stream>>>(op, (const raw *)x->a, (const raw *)x->b,
                                                                             (raw *)x->c, x->n);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_naive<DT, OP>, NAIVE_BLOCK, 0, out);
    }
};

/* add's rung 1 and axpy's v1 (seed 001, 2.1: one thread per element) are
 * the same kernel with a different op. */
SL_EW_LAUNCHER(sl_cuda_add_naive, rung_naive, sl_op_add)
SL_EW_LAUNCHER(sl_cuda_axpy_v1_naive, rung_naive, sl_op_axpy)
