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
#include "../../elementwise.cuh"

enum { VEC_BLOCK = 256 };

/* One 16-byte vector per input per thread: 4 f32, 8 f16/bf16, 16 fp8. */
template <int DT, class OP>
static __global__ void ew_vec(OP op, sl_ew_ptrs<DT> p)
{
    sl_ew_edges<DT>(op, p);
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.nvec)
        p.c16[i] = sl_apply16<DT>(op, p.a16[i], p.b16[i]);
}

template <int DT, class OP> struct rung_vec {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        sl_ew_ptrs<DT> p;
        sl_status st;
        if (!sl_ew_prologue<DT>(x, op, &p, &st))
            return st;
        size_t items = p.nvec > p.e.head + p.e.tail ? p.nvec : p.e.head + p.e.tail;
        unsigned grid = 0;
        if ((st = sl_grid_for(items, VEC_BLOCK, "vec4", &grid)) != SL_OK)
            return st;
        ew_vec<DT, OP><<<grid, VEC_BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_vec<DT, OP>, VEC_BLOCK, 0, out);
    }
};

/* add's rung 3, and axpy's v5 (seed 001, 2.6: float4) generalised to 16
 * bytes of any dtype, with the head/tail the seed's version left out. */
SL_EW_LAUNCHER(sl_cuda_add_vec4, rung_vec, sl_op_add)
SL_EW_LAUNCHER(sl_cuda_axpy_v5_vec, rung_vec, sl_op_axpy)
