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
#include "../../common.cuh"

enum { VEC4_BLOCK = 256 };

static __global__ void add_vec4(const float4 *a4, const float4 *b4, float4 *c4, size_t nvec,
                                const float *a, const float *b, float *c, sl_edges e)
{
    sl_add_edges_f32(a, b, c, e);
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nvec)
        c4[i] = sl_add4(a4[i], b4[i]);
}

extern "C" sl_status sl_cuda_add_vec4(const sl_args *x)
{
    sl_edges e;
    size_t nvec;
    sl_status st;
    if (!sl_add_vec_prologue(x, &e, &nvec, &st))
        return st;
    size_t items = nvec > e.head + e.tail ? nvec : e.head + e.tail;
    unsigned grid = 0;
    st = sl_grid_for(items, VEC4_BLOCK, "vec4", &grid);
    if (st != SL_OK)
        return st;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    add_vec4<<<grid, VEC4_BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float4 *)(a + e.head), (const float4 *)(b + e.head), (float4 *)(c + e.head), nvec,
        a, b, c, e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_add_vec4_attrs(sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs((const void *)add_vec4, VEC4_BLOCK, 0, out);
}
