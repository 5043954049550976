/*
 * Rung 8 (ours): bulk asynchronous copies (the Hopper copy engine behind
 * TMA) into shared memory, completed on an mbarrier; one 16 KiB tile per
 * input per block.
 *
 * Change from rung 7: one thread per block issues two cp.async.bulk
 * transfers (a tile, b tile) of up to 16 KiB each instead of 2 x 256 x 4
 * LDG.128 instructions; the data lands in shared memory and the SM's load
 * pipeline no longer has to track 2048 outstanding 16-byte requests. All
 * threads wait on the mbarrier's transaction count, add from shared memory
 * (conflict-free: consecutive float4 per thread) and store float4 to global.
 * CUB's DeviceTransform takes the same route on sm_90 ("ublkcp").
 *
 * Expectation: 32 KiB in flight per block and 6 resident blocks per SM
 * (shared memory bound: 6 x 33 KiB of 228 KiB) = 192 KiB per SM; the bound
 * is DRAM. Versus tile4 we expect parity to +2%: the copy engine issues
 * larger, strictly sequential requests. Needs sm_90; older devices get
 * SL_ERR_UNSUPPORTED here (and sl_add uses tile4 there).
 */
#include "../../common.cuh"

enum { BULK_BLOCK = 256, BULK_VPT = 4, BULK_TILE = BULK_BLOCK * BULK_VPT };

static __device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals)
                 : "memory");
    /* Make the initialised barrier visible to the async proxy that will
     * signal it (PTX ISA, "fence.mbarrier_init" and "fence.proxy.async"). */
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* Arrive once and tell the barrier to expect `bytes` of transactions. */
static __device__ __forceinline__ void mbar_arrive_expect(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
                 "r"(bytes)
                 : "memory");
}

/* Global -> shared bulk copy; bytes a multiple of 16, both ends 16-byte aligned. */
static __device__ __forceinline__ void bulk_load(void *dst, const void *src, uint32_t bytes,
                                                 uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_u32(dst)),
                 "l"(src), "r"(bytes), "r"(smem_u32(bar))
                 : "memory");
}

static __device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    uint32_t done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_u32(bar)), "r"(parity)
                     : "memory");
    }
}

static __global__ void __launch_bounds__(BULK_BLOCK)
add_bulk(const float4 *a4, const float4 *b4, float4 *c4, size_t nvec,
         const float *a, const float *b, float *c, sl_edges e)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ __align__(128) float4 sa[BULK_TILE];
    __shared__ __align__(128) float4 sb[BULK_TILE];
    __shared__ __align__(8) uint64_t bar;

    sl_add_edges_f32(a, b, c, e);
    const size_t base = (size_t)blockIdx.x * BULK_TILE;
    if (base >= nvec) /* block-uniform: only the edge-only launch of a tiny n */
        return;
    const size_t left = nvec - base;
    const uint32_t count = left < (size_t)BULK_TILE ? (uint32_t)left : (uint32_t)BULK_TILE;
    const uint32_t bytes = count * (uint32_t)sizeof(float4);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, 2 * bytes);
        bulk_load(sa, a4 + base, bytes, &bar);
        bulk_load(sb, b4 + base, bytes, &bar);
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    mbar_wait(&bar, 0);
#pragma unroll
    for (int k = 0; k < BULK_VPT; k++) {
        uint32_t j = threadIdx.x + k * BULK_BLOCK;
        if (j < count)
            c4[base + j] = sl_add4(sa[j], sb[j]);
    }
#else
    (void)a4; (void)b4; (void)c4; (void)nvec; (void)a; (void)b; (void)c; (void)e;
#endif
}

extern "C" sl_status sl_cuda_add_bulk(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    int cc;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (cc < 90)
        return sl_fail(SL_ERR_UNSUPPORTED, "bulk: needs sm_90 or newer (cp.async.bulk); this device is sm_%d", cc);
    sl_edges e;
    size_t nvec;
    if (!sl_split_f32x4(x->a, x->b, x->c, x->n, &e, &nvec))
        return sl_cuda_add_scalar_ilp(x);
    unsigned grid = 0;
    st = sl_grid_for(nvec, BULK_TILE, "bulk", &grid);
    if (st != SL_OK)
        return st;
    const float *a = (const float *)x->a, *b = (const float *)x->b;
    float *c = (float *)x->c;
    add_bulk<<<grid, BULK_BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float4 *)(a + e.head), (const float4 *)(b + e.head), (float4 *)(c + e.head), nvec,
        a, b, c, e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_add_bulk_attrs(sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs((const void *)add_bulk, BULK_BLOCK, 0, out);
}
