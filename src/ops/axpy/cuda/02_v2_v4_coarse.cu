/*
 * Rungs v2 to v4 of the SAXPY ladder (y = alpha * x + y, in place), as seed
 * 001 ("Part 2 - Thread Coarsening and Vectorized Memory Access") builds
 * them, templated over the storage dtype (f32 is the seed's; f16 and bf16
 * compute in fp32 the same way, f64 in fp64). v1 is the naive kernel and v5
 * the 16-byte vector kernel every elementwise ladder starts with
 * (ew_rungs.cuh), with the axpy op: 01_v1_naive.cu and 05_v5_vec.cu.
 *
 * Changes from the seed: 64-bit indices (n >= 2^31), and fmaf() written out
 * (the seed's `alpha * x[i] + y[i]` contracts to the same FFMA under nvcc's
 * default -fmad=true; writing it makes the host reference unambiguous).
 *
 *   v2_coarse    thread coarsening, EL_PER_THREAD = 4, block-strided: thread
 *                t of a 256-thread block handles t, t + 256, t + 512,
 *                t + 768 of its block's 1024 elements (2.3), a bounds check
 *                per element.
 *   v3a_hoist    the same, with the bounds check hoisted: one test for
 *                "all four in range", then an unchecked unrolled body (2.3).
 *   v3b_restrict v3a with const __restrict__ x and __restrict__ y (2.4):
 *                x may take the non-coherent load path (LDG.E.CONSTANT) and
 *                the compiler may hoist loads above stores.
 *   v4_persistent a persistent grid (SMs x resident blocks) walking the
 *                array grid-stride, COARSE = 4 accesses per step (2.5).
 *
 * Seed 001's B200 measurements at n = 2^25 (ncu): instructions
 * 19.9M / 14.7M / 11.8M / 11.8M / 12.4M / 5.8M and DRAM throughput 36% /
 * 46% / 46% / 48% / 55% / 79% of peak for v1 / v2 / v3a / v3b / v4 / v5.
 */
#include "axpy.cuh"

enum { AXPY_BLOCK = 256, EL_PER_THREAD = 4, COARSE = 4 };

typedef sl_k_axpy axpy_op;

/* y[i] = alpha * x[i] + y[i] for one element, through the op. */
template <int DT>
static __device__ __forceinline__ void axpy1(const axpy_op &op, const typename sl_dt<DT>::raw *x,
                                             typename sl_dt<DT>::raw *y, size_t i)
{
    typedef sl_dt<DT> T;
    const typename T::T v[2] = {T::load(x[i]), T::load(y[i])};
    y[i] = T::store(op(v));
}

template <int DT>
static __global__ void axpy_v2(axpy_op op, const typename sl_dt<DT>::raw *x, typename sl_dt<DT>::raw *y, size_t n)
{
    const size_t base = (size_t)blockIdx.x * (AXPY_BLOCK * EL_PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < EL_PER_THREAD; k++) {
        size_t i = base + (size_t)k * AXPY_BLOCK;
        if (i < n)
            axpy1<DT>(op, x, y, i);
    }
}

template <int DT>
static __global__ void axpy_v3a(axpy_op op, const typename sl_dt<DT>::raw *x, typename sl_dt<DT>::raw *y, size_t n)
{
    const size_t base = (size_t)blockIdx.x * (AXPY_BLOCK * EL_PER_THREAD) + threadIdx.x;
    if (base + (EL_PER_THREAD - 1) * AXPY_BLOCK < n) {
#pragma unroll
        for (int k = 0; k < EL_PER_THREAD; k++)
            axpy1<DT>(op, x, y, base + (size_t)k * AXPY_BLOCK);
    } else {
#pragma unroll
        for (int k = 0; k < EL_PER_THREAD; k++) {
            size_t i = base + (size_t)k * AXPY_BLOCK;
            if (i < n)
                axpy1<DT>(op, x, y, i);
        }
    }
}

/* Exactly v3a's body; y is read and written through one pointer, which
 * __restrict__ allows (each element is read and then written by one thread). */
template <int DT>
static __global__ void axpy_v3b(axpy_op op, const typename sl_dt<DT>::raw *__restrict__ x,
                                typename sl_dt<DT>::raw *__restrict__ y, size_t n)
{
    const size_t base = (size_t)blockIdx.x * (AXPY_BLOCK * EL_PER_THREAD) + threadIdx.x;
    if (base + (EL_PER_THREAD - 1) * AXPY_BLOCK < n) {
#pragma unroll
        for (int k = 0; k < EL_PER_THREAD; k++)
            axpy1<DT>(op, x, y, base + (size_t)k * AXPY_BLOCK);
    } else {
#pragma unroll
        for (int k = 0; k < EL_PER_THREAD; k++) {
            size_t i = base + (size_t)k * AXPY_BLOCK;
            if (i < n)
                axpy1<DT>(op, x, y, i);
        }
    }
}

template <int DT>
static __global__ void axpy_v4(axpy_op op, const typename sl_dt<DT>::raw *__restrict__ x,
                               typename sl_dt<DT>::raw *__restrict__ y, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < n; b += stride * COARSE) {
#pragma unroll
        for (int k = 0; k < COARSE; k++) {
            size_t i = b + (size_t)k * stride;
            if (i < n)
                axpy1<DT>(op, x, y, i);
        }
    }
}

/* The three block-strided rungs share a launcher: grid = ceil(n / 1024). */
enum { V2 = 2, V3A = 3, V3B = 4 };

template <int DT> using coarse_fn = void (*)(axpy_op, const typename sl_dt<DT>::raw *, typename sl_dt<DT>::raw *,
                                             size_t);

template <int WHICH, int DT> static coarse_fn<DT> coarse_kernel()
{
    return WHICH == V2 ? axpy_v2<DT> : WHICH == V3A ? axpy_v3a<DT> : axpy_v3b<DT>;
}

template <int WHICH, int DT, class OP> struct rung_coarse {
    typedef typename sl_dt<DT>::raw raw;
    static sl_status launch(const sl_args *a, const OP &op)
    {
        if (a->n == 0)
            return SL_OK;
        unsigned grid = 0;
        sl_status st = sl_grid_for(a->n, AXPY_BLOCK * EL_PER_THREAD, "axpy coarse", &grid);
        if (st != SL_OK)
            return st;
        coarse_kernel<WHICH, DT>()<<<grid, AXPY_BLOCK, 0, (cudaStream_t)a->stream>>>(op, (const raw *)a->buf[0],
                                                                                    (raw *)a->buf[1], a->n);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)coarse_kernel<WHICH, DT>(), AXPY_BLOCK, 0, out);
    }
};

template <int DT, class OP> struct rung_persistent {
    typedef typename sl_dt<DT>::raw raw;
    static sl_status launch(const sl_args *a, const OP &op)
    {
        static sl_grid_cache cache;
        if (a->n == 0)
            return SL_OK;
        int grid = 0;
        sl_status st = sl_cuda_persistent_grid(&cache, (const void *)axpy_v4<DT>, AXPY_BLOCK, 0, &grid);
        if (st != SL_OK)
            return st;
        axpy_v4<DT><<<grid, AXPY_BLOCK, 0, (cudaStream_t)a->stream>>>(op, (const raw *)a->buf[0], (raw *)a->buf[1],
                                                                       a->n);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)axpy_v4<DT>, AXPY_BLOCK, 0, out);
    }
};

template <int DT, class OP> using rung_v2 = rung_coarse<V2, DT, OP>;
template <int DT, class OP> using rung_v3a = rung_coarse<V3A, DT, OP>;
template <int DT, class OP> using rung_v3b = rung_coarse<V3B, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_axpy_v2_coarse, rung_v2, sl_k_axpy)
SL_EW_LAUNCHER(sl_cuda_axpy_v3a_hoist, rung_v3a, sl_k_axpy)
SL_EW_LAUNCHER(sl_cuda_axpy_v3b_restrict, rung_v3b, sl_k_axpy)
SL_EW_LAUNCHER(sl_cuda_axpy_v4_persistent, rung_persistent, sl_k_axpy)
