/*
 * bulk.cuh - add kernels that stage the inputs through shared memory with
 * the bulk-copy engine (see bulk_copy.cuh), for rungs 8 and 9 and the search
 * in bench/explore_kernels.cu.
 *
 * add_bulk_tile<BLOCK, V, BULK_STORE>: one tile of BLOCK * V float4 per
 *   input per block. Thread 0 issues two cp.async.bulk loads completing on
 *   one mbarrier; every thread waits, adds V float4 from shared memory and
 *   stores them (st.global.v4), or, with BULK_STORE, writes the sums back to
 *   shared memory and thread 0 sends the tile out with one bulk store.
 * add_bulk_pipe<BLOCK, V, STAGES>: a persistent kernel (SMs x resident
 *   blocks) that walks tiles with stride gridDim.x through a ring of STAGES
 *   shared-memory buffers, keeping STAGES - 1 tiles of loads in flight
 *   while it adds and stores the current one.
 */
#ifndef SL_BULK_CUH
#define SL_BULK_CUH

#include "../../bulk_copy.cuh"
#include "../../common.cuh"

template <int BLOCK, int V, bool BULK_STORE>
static __global__ void __launch_bounds__(BLOCK, SL_THREADS_PER_SM / BLOCK)
add_bulk_tile(const float4 *a4, const float4 *b4, float4 *c4, size_t nvec, const float *a, const float *b, float *c,
              sl_edges e)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    enum { TILE = BLOCK * V };
    __shared__ __align__(128) float4 sa[TILE];
    __shared__ __align__(128) float4 sb[TILE];
    __shared__ __align__(8) uint64_t bar;

    sl_add_edges_f32(a, b, c, e);
    const size_t base = (size_t)blockIdx.x * TILE;
    if (base >= nvec) /* block-uniform: only the edge-only launch of a tiny n */
        return;
    const size_t left = nvec - base;
    const uint32_t count = left < (size_t)TILE ? (uint32_t)left : (uint32_t)TILE;
    const uint32_t bytes = count * (uint32_t)sizeof(float4);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, 2 * bytes);
        bulk_load(sa, a4 + base, bytes, &bar);
        bulk_load(sb, b4 + base, bytes, &bar);
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    mbar_wait(&bar, 0);
    if (!BULK_STORE) {
#pragma unroll
        for (int v = 0; v < V; v++) {
            uint32_t j = threadIdx.x + v * BLOCK;
            if (j < count)
                c4[base + j] = sl_add4(sa[j], sb[j]);
        }
    } else {
#pragma unroll
        for (int v = 0; v < V; v++) {
            uint32_t j = threadIdx.x + v * BLOCK;
            if (j < count)
                sa[j] = sl_add4(sa[j], sb[j]);
        }
        fence_proxy_async(); /* our shared stores, before the bulk store reads them */
        __syncthreads();
        if (threadIdx.x == 0) {
            bulk_store(c4 + base, sa, bytes);
            bulk_commit();
            bulk_wait_read_all(); /* shared memory must outlive the read */
        }
    }
#else
    /* Compiled for an architecture without bulk copies: the launcher checks
     * the loaded code's version first, so reaching this is a bug; fail loudly
     * rather than return with c unwritten. */
    (void)a4; (void)b4; (void)c4; (void)nvec; (void)a; (void)b; (void)c; (void)e;
    __trap();
#endif
}

template <int BLOCK, int V, int STAGES>
static __global__ void __launch_bounds__(BLOCK)
add_bulk_pipe(const float4 *a4, const float4 *b4, float4 *c4, size_t nvec, const float *a, const float *b, float *c,
              sl_edges e)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    enum { TILE = BLOCK * V };
    extern __shared__ __align__(128) float4 ring[]; /* STAGES x (a tile, b tile) */
    __shared__ __align__(8) uint64_t full[STAGES];

    sl_add_edges_f32(a, b, c, e);
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
                mbar_arrive_expect(&full[s], 2 * bytes);
                bulk_load(ring + (2 * s) * TILE, a4 + base, bytes, &full[s]);
                bulk_load(ring + (2 * s + 1) * TILE, b4 + base, bytes, &full[s]);
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
        const float4 *sa = ring + (2 * s) * TILE, *sb = ring + (2 * s + 1) * TILE;
        mbar_wait(&full[s], phase);
#pragma unroll
        for (int v = 0; v < V; v++) {
            uint32_t j = threadIdx.x + v * BLOCK;
            if (j < count)
                c4[base + j] = sl_add4(sa[j], sb[j]);
        }
        __syncthreads(); /* every thread is done reading stage s */
        const size_t next = t + STAGES * step;
        if (threadIdx.x == 0 && next < ntiles) {
            fence_proxy_async(); /* our reads of stage s, before the engine overwrites it */
            size_t nb = next * TILE;
            uint32_t bytes = (uint32_t)((nvec - nb < (size_t)TILE ? nvec - nb : (size_t)TILE) * 16);
            mbar_arrive_expect(&full[s], 2 * bytes);
            bulk_load(ring + (2 * s) * TILE, a4 + nb, bytes, &full[s]);
            bulk_load(ring + (2 * s + 1) * TILE, b4 + nb, bytes, &full[s]);
        }
        if (++s == STAGES) {
            s = 0;
            phase ^= 1;
        }
    }
#else
    (void)a4; (void)b4; (void)c4; (void)nvec; (void)a; (void)b; (void)c; (void)e;
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

/* sl_add_vec_prologue plus the sm_90 check the bulk copy engine needs. */
static inline int bulk_prologue(const sl_args *x, const char *who, const void *fn, int *code_cache, sl_edges *e,
                                size_t *nvec, sl_status *st)
{
    if (x->n > 0) {
        int cc = 0;
        if ((*st = sl_cuda_current_cc(&cc)) != SL_OK)
            return 0;
        if (cc < 90) {
            *st = sl_fail(SL_ERR_UNSUPPORTED, "%s: needs sm_90 or newer (cp.async.bulk); this device is sm_%d", who,
                          cc);
            return 0;
        }
        if ((*st = bulk_code_ok(fn, code_cache)) != SL_OK)
            return 0;
    }
    return sl_add_vec_prologue(x, e, nvec, st);
}

template <int BLOCK, int V, bool BULK_STORE>
static sl_status launch_bulk_tile(const sl_args *x)
{
    static int code_cache[SL_MAX_DEVICES];
    sl_edges e;
    size_t nvec;
    sl_status st;
    if (!bulk_prologue(x, "bulk", (const void *)add_bulk_tile<BLOCK, V, BULK_STORE>, code_cache, &e, &nvec, &st))
        return st;
    unsigned grid = 0;
    if ((st = sl_grid_for(nvec, (size_t)BLOCK * V, "bulk", &grid)) != SL_OK)
        return st;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    add_bulk_tile<BLOCK, V, BULK_STORE><<<grid, BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float4 *)(a + e.head), (const float4 *)(b + e.head), (float4 *)(c + e.head), nvec, a, b, c, e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

template <int BLOCK, int V, int STAGES>
static sl_status launch_bulk_pipe(const sl_args *x, sl_grid_cache *cache)
{
    static int code_cache[SL_MAX_DEVICES];
    sl_edges e;
    size_t nvec;
    sl_status st;
    if (!bulk_prologue(x, "bulk_pipe", (const void *)add_bulk_pipe<BLOCK, V, STAGES>, code_cache, &e, &nvec, &st))
        return st;
    const size_t smem = (size_t)STAGES * 2 * BLOCK * V * sizeof(float4);
    const void *fn = (const void *)add_bulk_pipe<BLOCK, V, STAGES>;
    int dev = 0;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    if (dev >= SL_MAX_DEVICES || __atomic_load_n(&cache->grid[dev], __ATOMIC_RELAXED) == 0) {
        /* Above 48 KiB a kernel must opt in to dynamic shared memory; once
         * per device, before the occupancy query that depends on it. */
        SL_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    }
    int grid = 0;
    if ((st = sl_cuda_persistent_grid(cache, fn, BLOCK, smem, &grid)) != SL_OK)
        return st;
    size_t ntiles = (nvec + BLOCK * V - 1) / (BLOCK * V);
    if (ntiles < (size_t)grid)
        grid = ntiles > 0 ? (int)ntiles : 1;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    add_bulk_pipe<BLOCK, V, STAGES><<<grid, BLOCK, smem, (cudaStream_t)x->stream>>>(
        (const float4 *)(a + e.head), (const float4 *)(b + e.head), (float4 *)(c + e.head), nvec, a, b, c, e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#endif /* SL_BULK_CUH */
