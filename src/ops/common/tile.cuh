/*
 * tile.cuh - the block-tile elementwise kernel, templated over the block
 * size, the 16-byte vectors per input per thread (K), the cache hint, the
 * dtype and the op: add's rung 7 (tile4) and cache-hint rungs, axpy's
 * tile4 and the search in bench/experiments/explore_kernels.cu.
 *
 * Block j owns vectors [j * BLOCK * K, (j + 1) * BLOCK * K); thread t loads
 * t, t + BLOCK, ... (coalesced per k), all K per input before the first op.
 * __launch_bounds__(BLOCK, SL_THREADS_PER_SM / BLOCK) caps registers at 32 so a full SM
 * (2048 threads) stays resident. (The cap was a hypothesis for tile4's 1.5%
 * loss to vec4; it did not move tile4, see docs/ladder.md.)
 *
 * Cache hints (PTX ISA, "Cache Operators" and "createpolicy"; seed 000,
 * "Cache hints"):
 *   HINT_STREAMING    ld.global.cs / st.global.cs: evict-first in L1 and L2
 *   HINT_LAST_USE     ld.global.lu: the line will not be read again
 *   HINT_NO_ALLOCATE  ld.global.nc.L1::no_allocate: read-only path, no L1 line
 *   HINT_EVICT_FIRST  an L2 policy from createpolicy.fractional.L2::evict_first
 *                     on every load and store (L2::cache_hint; sm_80+, the
 *                     default elsewhere)
 */
#ifndef SL_TILE_CUH
#define SL_TILE_CUH

#include "elementwise.cuh"

enum { HINT_DEFAULT = 0, HINT_STREAMING, HINT_NO_ALLOCATE, HINT_LAST_USE, HINT_EVICT_FIRST };

/* The L2 evict-first policy (a 64-bit descriptor), made once per thread. */
static __device__ __forceinline__ uint64_t tile_policy(void)
{
    uint64_t pol = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
#endif
    return pol;
}

template <int HINT>
static __device__ __forceinline__ uint4 tile_load(const uint4 *p, uint64_t pol)
{
    uint4 v;
    if (HINT == HINT_STREAMING)
        return __ldcs(p);
    if (HINT == HINT_LAST_USE)
        return __ldlu(p);
    if (HINT == HINT_NO_ALLOCATE) {
        asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p));
        return v;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (HINT == HINT_EVICT_FIRST) {
        asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p), "l"(pol));
        return v;
    }
#endif
    (void)pol;
    return *p;
}

template <int HINT>
static __device__ __forceinline__ void tile_store(uint4 *p, uint4 v, uint64_t pol)
{
    if (HINT == HINT_STREAMING) {
        __stcs(p, v);
        return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (HINT == HINT_EVICT_FIRST) {
        asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;"
                     :
                     : "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(pol)
                     : "memory");
        return;
    }
#endif
    (void)pol;
    *p = v;
}

/* The NIN 16-byte vectors of body vector j, with the hint; RA: the
 * realigned layout (two aligned loads and sl_funnel16 for a shifted input,
 * as sl_ld16). */
template <int HINT, int DT, class OP, bool RA>
static __device__ __forceinline__ void tile_ld16(const sl_ew_ptrs<DT, OP::NIN> &p, size_t j, uint64_t pol,
                                                 uint4 (&v)[OP::NIN])
{
#pragma unroll
    for (int q = 0; q < OP::NIN; q++) {
        if (RA && p.sh[q])
            v[q] = sl_funnel16<sizeof(typename sl_dt<DT>::raw)>(tile_load<HINT>(p.in16[q] + j, pol), tile_load<HINT>(p.in16[q] + j + 1, pol), p.sh[q]);
        else
            v[q] = tile_load<HINT>(p.in16[q] + j, pol);
    }
}

/* RA (the realigned layout) holds two aligned vectors per input per k
 * until they are funnel-shifted: K x NIN x 8 registers of loads. Under the
 * aligned kernel's 32-register cap ptxas spilled 76-216 bytes per thread
 * (H200 build, issue 17), so the realigned kernel asks for a quarter of
 * the resident blocks (up to 128 registers): 512 threads per SM on sm_90,
 * still 4 x 2 x 16 B x 512 = 64 KiB of loads in flight per SM for two
 * inputs, above the ~48 KiB knee (docs/probes.md). */
template <int BLOCK, int K, int HINT, int DT, class OP, bool RA>
static __global__ void __launch_bounds__(BLOCK, RA ? (SL_THREADS_PER_SM / BLOCK / 4 > 0 ? SL_THREADS_PER_SM / BLOCK / 4 : 1)
                                                   : SL_THREADS_PER_SM / BLOCK)
ew_tile(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
    sl_ew_edges<DT>(op, p);
    const uint64_t pol = HINT == HINT_EVICT_FIRST ? tile_policy() : 0;
    const size_t base = (size_t)blockIdx.x * (BLOCK * K);
    const size_t i = base + threadIdx.x;
    if (base + BLOCK * K <= p.nvec) {
        uint4 r[K][OP::NIN];
#pragma unroll
        for (int k = 0; k < K; k++)
            tile_ld16<HINT, DT, OP, RA>(p, i + k * BLOCK, pol, r[k]);
#pragma unroll
        for (int k = 0; k < K; k++)
            tile_store<HINT>(p.out16 + i + k * BLOCK, sl_apply16<DT>(op, r[k]), pol);
    } else {
#pragma unroll
        for (int k = 0; k < K; k++) {
            size_t j = i + k * BLOCK;
            if (j < p.nvec) {
                uint4 r[OP::NIN];
                tile_ld16<HINT, DT, OP, RA>(p, j, pol, r);
                tile_store<HINT>(p.out16 + j, sl_apply16<DT>(op, r), pol);
            }
        }
    }
}

template <int BLOCK, int K, int HINT, int DT, class OP> struct rung_tile {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_status st;
        bool ra = false;
        if (!sl_ew_prologue<DT>(x, op, &p, &ra, &st))
            return st;
        unsigned grid = 0;
        /* The edge threads live in block 0 onwards: at least enough blocks for them. */
        size_t items = p.nvec > 0 ? p.nvec : 1;
        if ((st = sl_grid_for(items, (size_t)BLOCK * K, "tile", &grid)) != SL_OK)
            return st;
        if (ra)
            ew_tile<BLOCK, K, HINT, DT, OP, true><<<grid, BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        else
            ew_tile<BLOCK, K, HINT, DT, OP, false><<<grid, BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_tile<BLOCK, K, HINT, DT, OP, false>, BLOCK, 0, out);
    }
};

#endif /* SL_TILE_CUH */
