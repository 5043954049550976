/*
 * Rung 7 (ours): block tile, K float4 per input per thread, all loads issued
 * before the first add, one tile per block (not persistent).
 *
 * Change from rung 6: instead of a grid-stride loop, block j owns the
 * contiguous tile [j * 256 * K, (j + 1) * 256 * K) of float4. A thread's K
 * loads per input are independent and go out back to back, and there is no
 * loop-carried index between iterations: when a block finishes, a new one
 * with a fresh tile takes its slot, so loads keep flowing during another
 * block's stores. Full tiles run without bounds checks; only the last tile
 * is guarded.
 *
 * Expectation (H200): K = 4 gives 2 x 4 x 16 = 128 bytes in flight per
 * thread, 256 KiB per SM at full occupancy, far over the ~48 KiB per SM that
 * Little's law needs (4.8 TB/s x ~1.3 us / 132 SMs); the limit becomes DRAM
 * itself. Target: within 2% of CUB's DeviceTransform.
 *
 * The cache-hint and K variants exist for the exploration in
 * bench/explore_add.c; the registered rung is tile4 with default hints.
 */
#include "../../common.cuh"

enum { TILE_BLOCK = 256 };
enum { HINT_DEFAULT = 0, HINT_STREAMING = 1, HINT_NO_ALLOCATE = 2 };

template <int HINT>
static __device__ __forceinline__ float4 tile_load(const float4 *p)
{
    if (HINT == HINT_STREAMING)
        return __ldcs(p); /* ld.global.cs: evict-first in L1 and L2 */
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

template <int K, int HINT>
static __global__ void __launch_bounds__(TILE_BLOCK)
add_tile(const float4 *a4, const float4 *b4, float4 *c4, size_t nvec,
         const float *a, const float *b, float *c, sl_edges e)
{
    sl_add_edges_f32(a, b, c, e);
    const size_t base = (size_t)blockIdx.x * (TILE_BLOCK * K);
    const size_t i = base + threadIdx.x;
    if (base + TILE_BLOCK * K <= nvec) {
        float4 ra[K], rb[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            ra[k] = tile_load<HINT>(a4 + i + k * TILE_BLOCK);
            rb[k] = tile_load<HINT>(b4 + i + k * TILE_BLOCK);
        }
#pragma unroll
        for (int k = 0; k < K; k++)
            tile_store<HINT>(c4 + i + k * TILE_BLOCK, sl_add4(ra[k], rb[k]));
    } else {
#pragma unroll
        for (int k = 0; k < K; k++) {
            size_t j = i + k * TILE_BLOCK;
            if (j < nvec)
                tile_store<HINT>(c4 + j, sl_add4(tile_load<HINT>(a4 + j), tile_load<HINT>(b4 + j)));
        }
    }
}

template <int K, int HINT>
static sl_status launch_tile(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    sl_edges e;
    size_t nvec;
    if (!sl_split_f32x4(x->a, x->b, x->c, x->n, &e, &nvec))
        return sl_cuda_add_scalar_ilp(x);
    unsigned grid = 0;
    sl_status st = sl_grid_for(nvec, (size_t)TILE_BLOCK * K, "tile", &grid);
    if (st != SL_OK)
        return st;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    add_tile<K, HINT><<<grid, TILE_BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float4 *)(a + e.head), (const float4 *)(b + e.head), (float4 *)(c + e.head), nvec,
        a, b, c, e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* Exploration entry: K in {1, 2, 4, 8}, hint in {0 default, 1 .cs, 2 .nc no_allocate}. */
extern "C" sl_status sl_cuda_add_tile_cfg(const sl_args *x, int k, int hint)
{
#define SL_TILE_CASE(K_, H_)                                                    \
    if (k == K_ && hint == H_)                                                  \
        return launch_tile<K_, H_>(x);
#define SL_TILE_HINTS(K_) SL_TILE_CASE(K_, 0) SL_TILE_CASE(K_, 1) SL_TILE_CASE(K_, 2)
    SL_TILE_HINTS(1)
    SL_TILE_HINTS(2)
    SL_TILE_HINTS(4)
    SL_TILE_HINTS(8)
#undef SL_TILE_HINTS
#undef SL_TILE_CASE
    return sl_fail(SL_ERR_INVALID_ARG, "tile: no instance for K = %d, hint = %d", k, hint);
}

extern "C" sl_status sl_cuda_add_tile4(const sl_args *x)
{
    return launch_tile<4, HINT_DEFAULT>(x);
}

extern "C" sl_status sl_cuda_add_tile4_attrs(sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs((const void *)add_tile<4, HINT_DEFAULT>, TILE_BLOCK, 0, out);
}
