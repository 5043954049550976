/*
 * bulk.cuh - elementwise kernels that stage the inputs through shared memory
 * with the bulk-copy engine (see bulk_copy.cuh), templated over the dtype
 * and the op like every rung (elementwise.cuh): add's rung 8, axpy's bulk
 * rung, the public API on sm_90, and the search in bench/experiments/explore_kernels.cu.
 * Tiles are counted in 16-byte vectors whatever the dtype.
 *
 * ew_bulk_tile<BLOCK, V, BULK_STORE>: one tile of BLOCK * V vectors per
 *   input per block. Thread 0 issues one cp.async.bulk load per input (NIN)
 *   completing on one mbarrier; every thread waits, applies the op to V
 *   vectors from shared memory and stores them (st.global.v4), or, with
 *   BULK_STORE, writes the results back to shared memory and thread 0 sends
 *   the tile out with one bulk store.
 * ew_bulk_pipe<BLOCK, V, STAGES>: a persistent kernel (SMs x resident
 *   blocks) that walks tiles with stride gridDim.x through a ring of STAGES
 *   shared-memory buffers, keeping STAGES - 1 tiles of loads in flight
 *   while it adds and stores the current one.
 */
#ifndef SL_BULK_CUH
#define SL_BULK_CUH

#include "bulk_copy.cuh"
#include "elementwise.cuh"

template <int BLOCK, int V, bool BULK_STORE, int DT, class OP, bool RA>
static __global__ void __launch_bounds__(BLOCK, SL_THREADS_PER_SM / BLOCK)
ew_bulk_tile(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* RA (the realigned layout, sl_ew_ptrs): each input's tile is loaded
     * from its aligned-down address with one vector more, and thread j
     * realigns sm[q][j], sm[q][j + 1] (two LDS.128, conflict-free) with
     * sl_funnel16; the bulk copy needs 16-byte aligned global and shared
     * addresses and sizes, which the aligned-down tiles are. */
    /* Each input's tile lands in shared memory at the same address modulo
     * 128 bytes as its global source (o[q] vectors into its row): a bulk
     * copy whose global and shared addresses differ modulo 32 bytes runs
     * 2-7% slower at DRAM sizes on the H200 (issue 17: 184 of 184 offset
     * combinations of f32 and f64 add and axpy followed that rule, the copy
     * of the last input mattering most; ncu: the same DRAM bytes, more L2
     * sector reads; bench/results/h200-alignment-2026-11-23b.md). Tiles
     * are TILE x 16 bytes apart (a multiple of 128), so o[q] is the same in
     * every block. Rows are a multiple of 8 vectors long, with 8 to spare. */
    enum { TILE = BLOCK * V, NIN = OP::NIN, SPAN = (TILE + (RA ? 1 : 0) + 7) / 8 * 8 + 8 };
    __shared__ __align__(128) uint4 sm[NIN][SPAN];
    __shared__ __align__(8) uint64_t bar;
    uint32_t o[NIN];
#pragma unroll
    for (int q = 0; q < NIN; q++)
        o[q] = (uint32_t)(((uintptr_t)p.in16[q] >> 4) & 7u);

    sl_ew_edges<DT>(op, p);
    const size_t base = (size_t)blockIdx.x * TILE;
    if (base >= p.nvec) /* block-uniform: only the edge-only launch of a tiny n */
        return;
    const size_t left = p.nvec - base;
    const uint32_t count = left < (size_t)TILE ? (uint32_t)left : (uint32_t)TILE;
    const uint32_t bytes = count * (uint32_t)sizeof(uint4);
    if (threadIdx.x == 0) {
        /* A shifted input loads one vector more (vector nvec exists:
         * sl_ew_split); an unshifted one does not: its extra vector would
         * be the next tile's first, which for an in-place axpy is another
         * block's output (issue 17: f64 axpy at x, y = 1, 0 elements ran
         * 0.985-0.988 x CUB while it did). sl_funnel16 with sh = 0 returns
         * lo and ignores hi, so the slot left unloaded is never used. */
        uint32_t in_bytes[NIN], total = 0;
#pragma unroll
        for (int q = 0; q < NIN; q++) {
            in_bytes[q] = bytes + ((RA && p.sh[q] != 0) ? (uint32_t)sizeof(uint4) : 0u);
            total += in_bytes[q];
        }
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, total);
#pragma unroll
        for (int q = 0; q < NIN; q++)
            bulk_load(&sm[q][o[q]], p.in16[q] + base, in_bytes[q], &bar);
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    mbar_wait(&bar, 0);
#pragma unroll
    for (int v = 0; v < V; v++) {
        uint32_t j = threadIdx.x + v * BLOCK;
        if (j < count) {
            uint4 r[NIN];
#pragma unroll
            for (int q = 0; q < NIN; q++)
                r[q] = RA ? sl_funnel16<sizeof(typename sl_dt<DT>::raw)>(sm[q][o[q] + j], sm[q][o[q] + j + 1], p.sh[q]) : sm[q][o[q] + j];
            if (!BULK_STORE)
                p.out16[base + j] = sl_apply16<DT>(op, r);
            else /* its own input's slot: only this thread reads it (BULK_STORE is aligned only) */
                sm[0][o[0] + j] = sl_apply16<DT>(op, r);
        }
    }
    if (BULK_STORE) {
        fence_proxy_async(); /* our shared stores, before the bulk store reads them */
        __syncthreads();
        if (threadIdx.x == 0) {
            bulk_store(p.out16 + base, &sm[0][o[0]], bytes);
            bulk_commit();
            bulk_wait_read_all(); /* shared memory must outlive the read */
        }
    }
#else
    /* Compiled for an architecture without bulk copies: the launcher checks
     * the loaded code's version first, so reaching this is a bug; fail loudly
     * rather than return with the output unwritten. */
    (void)op; (void)p;
    __trap();
#endif
}

template <int BLOCK, int V, int STAGES, int DT, class OP>
static __global__ void __launch_bounds__(BLOCK)
ew_bulk_pipe(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    enum { TILE = BLOCK * V, NIN = OP::NIN };
    extern __shared__ __align__(128) uint4 ring[]; /* STAGES x NIN tiles */
    __shared__ __align__(8) uint64_t full[STAGES];

    sl_ew_edges<DT>(op, p);
    const size_t nvec = p.nvec;
    const size_t ntiles = (nvec + TILE - 1) / TILE;
    const size_t step = gridDim.x;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++)
            mbar_init(&full[s], 1);
        for (int s = 0; s < STAGES; s++) {
            size_t t = blockIdx.x + s * step;
            if (t < ntiles) {
                size_t base = t * TILE;
                uint32_t bytes = (uint32_t)((nvec - base < (size_t)TILE ? nvec - base : (size_t)TILE) * 16);
                mbar_arrive_expect(&full[s], NIN * bytes);
                for (int q = 0; q < NIN; q++)
                    bulk_load(ring + (NIN * s + q) * TILE, p.in16[q] + base, bytes, &full[s]);
            }
        }
    }
    __syncthreads();
    int s = 0;
    uint32_t phase = 0;
    for (size_t t = blockIdx.x; t < ntiles; t += step) {
        const size_t base = t * TILE;
        const size_t left = nvec - base;
        const uint32_t count = left < (size_t)TILE ? (uint32_t)left : (uint32_t)TILE;
        mbar_wait(&full[s], phase);
#pragma unroll
        for (int v = 0; v < V; v++) {
            uint32_t j = threadIdx.x + v * BLOCK;
            if (j < count) {
                uint4 r[NIN];
#pragma unroll
                for (int q = 0; q < NIN; q++)
                    r[q] = ring[(NIN * s + q) * TILE + j];
                p.out16[base + j] = sl_apply16<DT>(op, r);
            }
        }
        __syncthreads(); /* every thread is done reading stage s */
        const size_t next = t + STAGES * step;
        if (threadIdx.x == 0 && next < ntiles) {
            fence_proxy_async(); /* our reads of stage s, before the engine overwrites it */
            size_t nb = next * TILE;
            uint32_t bytes = (uint32_t)((nvec - nb < (size_t)TILE ? nvec - nb : (size_t)TILE) * 16);
            mbar_arrive_expect(&full[s], NIN * bytes);
            for (int q = 0; q < NIN; q++)
                bulk_load(ring + (NIN * s + q) * TILE, p.in16[q] + nb, bytes, &full[s]);
        }
        if (++s == STAGES) {
            s = 0;
            phase ^= 1;
        }
    }
#else
    (void)op; (void)p;
    __trap();
#endif
}

/* The code the driver loaded for fn was compiled for sm_90 or newer (a build
 * for, say, sm_80 that runs on an H200 JITs sm_80 PTX, whose bulk kernels are
 * empty). Cached per device. */
static inline sl_status bulk_code_ok(const void *fn, int *cache)
{
    int dev;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    int *slot = dev >= 0 && dev < SL_MAX_DEVICES ? &cache[dev] : NULL;
    int v = slot ? __atomic_load_n(slot, __ATOMIC_RELAXED) : 0;
    if (!v) {
        cudaFuncAttributes fa;
        SL_CUDA_TRY(cudaFuncGetAttributes(&fa, fn));
        v = fa.binaryVersion >= 90 && fa.ptxVersion >= 90 ? 1 : -1;
        if (slot)
            __atomic_store_n(slot, v, __ATOMIC_RELAXED);
    }
    if (v < 0)
        return sl_fail(SL_ERR_UNSUPPORTED, "bulk: this binary has no sm_90 code for the device (rebuild with "
                                           "CMAKE_CUDA_ARCHITECTURES including 90)");
    return SL_OK;
}

/* The sm_90 check the bulk copy engine needs (n > 0). */
static inline bool bulk_arch_ok(const sl_args *x, const char *who, const void *fn, int *code_cache, sl_status *st)
{
    *st = SL_OK;
    if (x->n == 0)
        return true;
    int cc = 0;
    if ((*st = sl_cuda_current_cc(&cc)) != SL_OK)
        return false;
    if (cc < 90) {
        *st = sl_fail(SL_ERR_UNSUPPORTED, "%s: needs sm_90 or newer (cp.async.bulk); this device is sm_%d", who, cc);
        return false;
    }
    return (*st = bulk_code_ok(fn, code_cache)) == SL_OK;
}

/* OUT_ALIGN: the output alignment of the body (sl_ew_split): 16, or 128 so
 * that every tile of the output starts on a 128-byte line. */
template <int BLOCK, int V, bool BULK_STORE, int DT, class OP, int OUT_ALIGN = 16> struct rung_bulk_tile {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        static int code_cache[SL_MAX_DEVICES];
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_status st;
        bool ra = false;
        if (!bulk_arch_ok(x, "bulk", (const void *)ew_bulk_tile<BLOCK, V, BULK_STORE, DT, OP, false>, code_cache, &st))
            return st;
        /* realigned: the body (and so every tile) from a 128-byte line of the output */
        if (!sl_ew_prologue<DT>(x, op, &p, &ra, &st, OUT_ALIGN, 128))
            return st;
        unsigned grid = 0;
        if ((st = sl_grid_for(p.nvec > 0 ? p.nvec : 1, (size_t)BLOCK * V, "bulk", &grid)) != SL_OK)
            return st;
        if constexpr (BULK_STORE) {
            /* explore-only: results written back over sm[0] would race with
             * a neighbour's realigning read of sm[0][j + 1] */
            if (ra)
                return rung_scalar_ilp<DT, OP>::launch_ptrs(p, op, x->stream);
        } else if (ra) {
            ew_bulk_tile<BLOCK, V, BULK_STORE, DT, OP, true><<<grid, BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
            SL_CUDA_LAUNCHED();
            return SL_OK;
        }
        ew_bulk_tile<BLOCK, V, BULK_STORE, DT, OP, false><<<grid, BLOCK, 0, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_bulk_tile<BLOCK, V, BULK_STORE, DT, OP, false>, BLOCK, 0, out);
    }
};

template <int BLOCK, int V, int STAGES, int DT, class OP> struct rung_bulk_pipe {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        static int code_cache[SL_MAX_DEVICES];
        static sl_grid_cache cache;
        const void *fn = (const void *)ew_bulk_pipe<BLOCK, V, STAGES, DT, OP>;
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_status st;
        if (!bulk_arch_ok(x, "bulk_pipe", fn, code_cache, &st) || !sl_ew_prologue_aligned<DT>(x, op, &p, &st))
            return st;
        const size_t smem = (size_t)STAGES * OP::NIN * BLOCK * V * sizeof(uint4);
        int dev = 0;
        SL_CUDA_TRY(cudaGetDevice(&dev));
        if (dev >= SL_MAX_DEVICES || __atomic_load_n(&cache.grid[dev], __ATOMIC_RELAXED) == 0) {
            /* Above 48 KiB a kernel must opt in to dynamic shared memory; once
             * per device, before the occupancy query that depends on it. */
            SL_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        }
        int grid = 0;
        if ((st = sl_cuda_persistent_grid(&cache, fn, BLOCK, smem, &grid)) != SL_OK)
            return st;
        size_t ntiles = (p.nvec + BLOCK * V - 1) / (BLOCK * V);
        if (ntiles < (size_t)grid)
            grid = ntiles > 0 ? (int)ntiles : 1;
        ew_bulk_pipe<BLOCK, V, STAGES, DT, OP><<<grid, BLOCK, smem, (cudaStream_t)x->stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

#endif /* SL_BULK_CUH */
