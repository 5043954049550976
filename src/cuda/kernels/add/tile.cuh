/*
 * tile.cuh - the block-tile add kernel, templated over the block size, the
 * float4 per input per thread (K) and the cache hint, for rung 7 and for the
 * search in bench/explore_kernels.cu.
 *
 * Block j owns float4 [j * BLOCK * K, (j + 1) * BLOCK * K); thread t loads
 * t, t + BLOCK, ... (coalesced per k), all K per input before the first add.
 * __launch_bounds__(BLOCK, SL_THREADS_PER_SM / BLOCK) caps registers at 32 so a full SM
 * (2048 threads) stays resident. (The cap was a hypothesis for tile4's 1.5%
 * loss to vec4; it did not move tile4, see docs/ladder.md.)
 */
#ifndef SL_TILE_CUH
#define SL_TILE_CUH

#include "../../common.cuh"

enum { HINT_DEFAULT = 0, HINT_STREAMING = 1, HINT_NO_ALLOCATE = 2 };

template <int HINT>
static __device__ __forceinline__ float4 tile_load(const float4 *p)
{
    if (HINT == HINT_STREAMING)
        return __ldcs(p); /* ld.global.cs: evict-first */
    if (HINT == HINT_NO_ALLOCATE) {
        float4 v;
        asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(p));
        return v;
    }
    return *p;
}

template <int HINT>
static __device__ __forceinline__ void tile_store(float4 *p, float4 v)
{
    if (HINT == HINT_STREAMING)
        __stcs(p, v); /* st.global.cs */
    else
        *p = v;
}

template <int BLOCK, int K, int HINT>
static __global__ void __launch_bounds__(BLOCK, SL_THREADS_PER_SM / BLOCK)
add_tile(const float4 *a4, const float4 *b4, float4 *c4, size_t nvec, const float *a, const float *b, float *c,
         sl_edges e)
{
    sl_add_edges_f32(a, b, c, e);
    const size_t base = (size_t)blockIdx.x * (BLOCK * K);
    const size_t i = base + threadIdx.x;
    if (base + BLOCK * K <= nvec) {
        float4 ra[K], rb[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            ra[k] = tile_load<HINT>(a4 + i + k * BLOCK);
            rb[k] = tile_load<HINT>(b4 + i + k * BLOCK);
        }
#pragma unroll
        for (int k = 0; k < K; k++)
            tile_store<HINT>(c4 + i + k * BLOCK, sl_add4(ra[k], rb[k]));
    } else {
#pragma unroll
        for (int k = 0; k < K; k++) {
            size_t j = i + k * BLOCK;
            if (j < nvec)
                tile_store<HINT>(c4 + j, sl_add4(tile_load<HINT>(a4 + j), tile_load<HINT>(b4 + j)));
        }
    }
}

template <int BLOCK, int K, int HINT>
static sl_status launch_tile(const sl_args *x)
{
    sl_edges e;
    size_t nvec;
    sl_status st;
    if (!sl_add_vec_prologue(x, &e, &nvec, &st))
        return st;
    unsigned grid = 0;
    st = sl_grid_for(nvec, (size_t)BLOCK * K, "tile", &grid);
    if (st != SL_OK)
        return st;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    add_tile<BLOCK, K, HINT><<<grid, BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float4 *)(a + e.head), (const float4 *)(b + e.head), (float4 *)(c + e.head), nvec, a, b, c, e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

template <int BLOCK, int K, int HINT>
static sl_status attrs_tile(sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs((const void *)add_tile<BLOCK, K, HINT>, BLOCK, 0, out);
}

#endif /* SL_TILE_CUH */
