/*
 * grid_vec4_ilp.cuh - the kernel shared by rungs 4, 5 and 6: a grid-stride
 * loop over float4 with ILP independent float4 loads per input per thread
 * issued before the first add. ILP = 1 is rung 4 (grid-stride + float4),
 * 2 and 4 are the seed's ILP rungs. One template, because the rungs differ
 * only in the unroll factor.
 *
 * Bounds: a thread takes the unrolled path only while all ILP of its
 * accesses i, i + stride, ..., i + (ILP-1) * stride are below nvec, and
 * finishes with single steps. The seed's ILP kernels read past the end
 * when nvec was not a multiple of ILP * stride.
 */
#ifndef SL_GRID_VEC4_ILP_CUH
#define SL_GRID_VEC4_ILP_CUH

#include "elementwise.cuh"

enum { GRID_VEC4_BLOCK = 256 };

template <int ILP, int DT, class OP, bool RA>
static __global__ void ew_grid_vec_ilp(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
    sl_ew_edges<DT>(op, p);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (ILP - 1) * stride < p.nvec; i += ILP * stride) {
        uint4 r[ILP][OP::NIN];
#pragma unroll
        for (int k = 0; k < ILP; k++)
            sl_ld16<DT, OP, RA>(p, i + k * stride, r[k]);
#pragma unroll
        for (int k = 0; k < ILP; k++)
            p.out16[i + k * stride] = sl_apply16<DT>(op, r[k]);
    }
    for (; i < p.nvec; i += stride) {
        uint4 r[OP::NIN];
        sl_ld16<DT, OP, RA>(p, i, r);
        p.out16[i] = sl_apply16<DT>(op, r);
    }
}

template <int ILP, int DT, class OP> struct rung_grid_vec_ilp {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        static sl_grid_cache cache;
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_status st;
        bool ra = false;
        if (!sl_ew_prologue<DT>(x, op, &p, &ra, &st))
            return st;
        int grid = 0;
        st = sl_cuda_persistent_grid(&cache, (const void *)ew_grid_vec_ilp<ILP, DT, OP, false>, GRID_VEC4_BLOCK, 0,
                                     &grid);
        if (st != SL_OK)
            return st;
        if (ra)
            ew_grid_vec_ilp<ILP, DT, OP, true><<<grid, GRID_VEC4_BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        else
            ew_grid_vec_ilp<ILP, DT, OP, false><<<grid, GRID_VEC4_BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_grid_vec_ilp<ILP, DT, OP, false>, GRID_VEC4_BLOCK, 0, out);
    }
};

#endif /* SL_GRID_VEC4_ILP_CUH */
