/*
 * ew_rungs.cuh - the simplest elementwise kernels, templated over the
 * dtype and the op: one thread per element (naive), a grid-stride loop over
 * a persistent grid, and one 16-byte vector per input per thread (vec).
 * Each op's rung files (src/ops/<op>/cuda/NN_name.cu) instantiate them and
 * say what each rung changes and what it should do; the kernels are here
 * once because every op's ladder starts with them.
 */
#ifndef SL_EW_RUNGS_CUH
#define SL_EW_RUNGS_CUH

#include "elementwise.cuh"

enum { EW_NAIVE_BLOCK = 256, EW_GS_BLOCK = 256, EW_VEC_BLOCK = 256 };

/* One thread per element, ceil(n / 256) blocks. */
template <int DT, class OP>
static __global__ void ew_naive(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n)
        sl_apply1<DT>(op, p, i);
}

template <int DT, class OP> struct rung_naive {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        if (x->n == 0)
            return SL_OK;
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_ew_split<DT>(x, &p); /* element pointers only: alignment does not matter here */
        unsigned grid = 0;
        sl_status st = sl_grid_for(x->n, EW_NAIVE_BLOCK, "naive", &grid);
        if (st != SL_OK)
            return st;
        ew_naive<DT, OP><<<grid, EW_NAIVE_BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_naive<DT, OP>, EW_NAIVE_BLOCK, 0, out);
    }
};

/* A grid-stride loop over SMs x resident blocks. */
template <int DT, class OP>
static __global__ void ew_grid_stride(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += stride)
        sl_apply1<DT>(op, p, i);
}

template <int DT, class OP> struct rung_grid_stride {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        static sl_grid_cache cache;
        if (x->n == 0)
            return SL_OK;
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_ew_split<DT>(x, &p);
        int grid = 0;
        sl_status st = sl_cuda_persistent_grid(&cache, (const void *)ew_grid_stride<DT, OP>, EW_GS_BLOCK, 0, &grid);
        if (st != SL_OK)
            return st;
        ew_grid_stride<DT, OP><<<grid, EW_GS_BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_grid_stride<DT, OP>, EW_GS_BLOCK, 0, out);
    }
};

/* One 16-byte vector per input per thread, ceil(nvec / 256) blocks; the
 * head and tail on the first threads. RA: the realigned layout (sl_ld16). */
template <int DT, class OP, bool RA>
static __global__ void ew_vec(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
    sl_ew_edges<DT>(op, p);
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.nvec) {
        uint4 v[OP::NIN];
        sl_ld16<DT, OP, RA>(p, i, v);
        p.out16[i] = sl_apply16<DT>(op, v);
    }
}

template <int DT, class OP> struct rung_vec {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_status st;
        bool ra = false;
        if (!sl_ew_prologue<DT>(x, op, &p, &ra, &st))
            return st;
        size_t items = p.nvec > p.e.head + p.e.tail ? p.nvec : p.e.head + p.e.tail;
        unsigned grid = 0;
        if ((st = sl_grid_for(items, EW_VEC_BLOCK, "vec", &grid)) != SL_OK)
            return st;
        if (ra)
            ew_vec<DT, OP, true><<<grid, EW_VEC_BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        else
            ew_vec<DT, OP, false><<<grid, EW_VEC_BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_vec<DT, OP, false>, EW_VEC_BLOCK, 0, out);
    }
};

#endif /* SL_EW_RUNGS_CUH */
