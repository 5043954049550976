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

#include "../../common.cuh"

enum { GRID_VEC4_BLOCK = 256 };

template <int ILP>
static __global__ void add_grid_vec4_ilp(const float4 *a4, const float4 *b4, float4 *c4, size_t nvec,
                                         const float *a, const float *b, float *c, sl_edges e)
{
    sl_add_edges_f32(a, b, c, e);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (ILP - 1) * stride < nvec; i += ILP * stride) {
        float4 ra[ILP], rb[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            ra[k] = a4[i + k * stride];
            rb[k] = b4[i + k * stride];
        }
#pragma unroll
        for (int k = 0; k < ILP; k++)
            c4[i + k * stride] = sl_add4(ra[k], rb[k]);
    }
    for (; i < nvec; i += stride)
        c4[i] = sl_add4(a4[i], b4[i]);
}

/* The launcher the three rung files wrap. */
template <int ILP>
static sl_status launch_grid_vec4_ilp(const sl_args *x, sl_grid_cache *cache)
{
    sl_edges e;
    size_t nvec;
    sl_status st;
    if (!sl_add_vec_prologue(x, &e, &nvec, &st))
        return st;
    int grid = 0;
    st = sl_cuda_persistent_grid(cache, (const void *)add_grid_vec4_ilp<ILP>,
                                           GRID_VEC4_BLOCK, 0, &grid);
    if (st != SL_OK)
        return st;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    add_grid_vec4_ilp<ILP><<<grid, GRID_VEC4_BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float4 *)(a + e.head), (const float4 *)(b + e.head), (float4 *)(c + e.head), nvec,
        a, b, c, e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

template <int ILP>
static sl_status attrs_grid_vec4_ilp(sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs((const void *)add_grid_vec4_ilp<ILP>, GRID_VEC4_BLOCK, 0, out);
}

#endif /* SL_GRID_VEC4_ILP_CUH */
