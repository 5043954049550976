/*
 * bulk_copy.cuh - thin wrappers over the sm_90 PTX for the bulk-copy engine
 * (cp.async.bulk, the non-tensor form of TMA) and the mbarrier it signals,
 * and for the cluster exchanges the one-sided store into a peer CTA's
 * shared memory (st.async, mapa), the split cluster barrier and the
 * per-thread 16-byte cp.async. Source: PTX ISA 8.x, sections
 * "cp.async.bulk", "mbarrier", "fence.proxy.async", "st.async", "mapa",
 * "barrier.cluster", "cp.async". Everything here needs sm_90; callers guard with
 * __CUDA_ARCH__ >= 900 and their launchers refuse older devices.
 */
#ifndef SL_BULK_COPY_CUH
#define SL_BULK_COPY_CUH

#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

static __device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Initialise a barrier expecting `arrivals` arrivals per phase, and make the
 * initialisation visible to the async proxy that will complete it. */
static __device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* Arrive once and add `bytes` to the transaction count the phase waits for. */
static __device__ __forceinline__ void mbar_arrive_expect(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes)
                 : "memory");
}

/* Spin until the phase with this parity has completed. */
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

/* Arrive once (release at CTA scope: this thread's earlier shared-memory
 * stores are visible to a thread whose wait on the phase succeeds). */
static __device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

/* The shared::cluster address of p's counterpart in cluster CTA `rank`. */
static __device__ __forceinline__ uint32_t smem_peer(const void *p, uint32_t rank)
{
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_u32(p)), "r"(rank));
    return r;
}

/* Store v into another cluster CTA's shared memory (dst, bar: smem_peer
 * addresses in the same CTA); its 4 bytes complete that CTA's mbarrier
 * `bar` (complete_tx). Non-blocking: the destination's mbarrier wait is
 * what orders the data. */
static __device__ __forceinline__ void st_async_f32(uint32_t dst, float v, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];" ::"r"(dst), "f"(v),
                 "r"(bar)
                 : "memory");
}

/* The same for two and four floats at once (8 / 16 bytes, dst aligned to
 * its size): one st.async a vector, complete_tx by 8 / 16 bytes. */
static __device__ __forceinline__ void st_async_v2_f32(uint32_t dst, float a, float b, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(dst),
                 "f"(a), "f"(b), "r"(bar)
                 : "memory");
}

static __device__ __forceinline__ void st_async_v4_f32(uint32_t dst, float a, float b, float c, float d, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                     dst),
                 "f"(a), "f"(b), "f"(c), "f"(d), "r"(bar)
                 : "memory");
}

/* Every thread of the cluster arrives (relaxed: orders nothing but the
 * fence before it, e.g. fence.mbarrier_init), and later waits (acquire). */
static __device__ __forceinline__ void cluster_arrive_relaxed(void)
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

static __device__ __forceinline__ void cluster_wait(void)
{
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

/* Global -> shared, one 16-byte cp.async (L2 only) by this thread, in its
 * current commit group. */
static __device__ __forceinline__ void cp_async16(void *dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(dst)), "l"(src) : "memory");
}

/* Global -> shared, one 4-byte cp.async (through L1) by this thread, in its
 * current commit group (both addresses 4-byte aligned). */
static __device__ __forceinline__ void cp_async4(void *dst, const void *src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(dst)), "l"(src) : "memory");
}

/* Commit this thread's cp.async copies and wait for all of them. */
static __device__ __forceinline__ void cp_async_wait_all(void)
{
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
}

/* Global -> shared; bytes a multiple of 16, both addresses 16-byte aligned.
 * Completion adds `bytes` transactions to *bar. */
static __device__ __forceinline__ void bulk_load(void *dst, const void *src, uint32_t bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_u32(dst)),
                 "l"(src), "r"(bytes), "r"(smem_u32(bar))
                 : "memory");
}

/* Shared -> global, tracked as a bulk async-group of the issuing thread. */
static __device__ __forceinline__ void bulk_store(void *dst, const void *src, uint32_t bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_u32(src)),
                 "r"(bytes)
                 : "memory");
}

static __device__ __forceinline__ void bulk_commit(void)
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* Wait until every committed bulk store has finished reading shared memory
 * (the block may then exit or reuse the buffer). */
static __device__ __forceinline__ void bulk_wait_read_all(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

/* Order this thread's generic-proxy shared-memory accesses before later
 * async-proxy ones (a bulk store reading what we wrote; a bulk load
 * overwriting what we read). */
static __device__ __forceinline__ void fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

#endif /* __CUDA_ARCH__ >= 900 */

#endif /* SL_BULK_COPY_CUH */
