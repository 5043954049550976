/*
 * mm_common.cuh - what matmul's CUDA rungs share: element types and their
 * conversion to fp32, the epilogue (alpha acc + beta c, beta == 0 never
 * reads C), cp.async wrappers with zero fill for ragged tiles, and the
 * grid checks. Row-major A (M x K, lda), B (K x N, ldb), C (M x N, ldc).
 */
#ifndef SL_MM_COMMON_CUH
#define SL_MM_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "common.cuh"
#include "mm.h"

/* ---- element types ---------------------------------------------------------- */
__device__ __forceinline__ float mm_to_f32(float x) { return x; }
__device__ __forceinline__ float mm_to_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float mm_to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> __device__ __forceinline__ T mm_from_f32(float x);
template <> __device__ __forceinline__ float mm_from_f32<float>(float x) { return x; }
template <> __device__ __forceinline__ __half mm_from_f32<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 mm_from_f32<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

/* C[i][j] = alpha acc + beta C[i][j] (C read only when beta != 0), rounded once into T. */
template <class T>
__device__ __forceinline__ void mm_store(T *c, int64_t ldc, int64_t i, int64_t j, float acc, float alpha, float beta)
{
    T *at = c + i * ldc + j;
    float v = alpha * acc;
    if (beta != 0.0f)
        v = fmaf(beta, mm_to_f32(*at), v);
    *at = mm_from_f32<T>(v);
}

/* ---- cp.async (sm_80+): global -> shared without registers --------------------
 * src_bytes < the copy size zero-fills the rest (PTX ISA, "cp.async"):
 * how ragged tiles get their zeros. src must stay a valid address even when
 * src_bytes is 0, so callers clamp it to the matrix's first element. */
__device__ __forceinline__ void mm_cp_async16(void *smem, const void *gmem, int src_bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void mm_cp_async4(void *smem, const void *gmem, int src_bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void mm_cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void mm_cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

/* ---- sm_80 features -------------------------------------------------------------
 * cp.async (rungs 5-7), bf16 / TF32 WMMA and mma.sync need sm_80. The build
 * also targets sm_75 (-DSL_CUDA_ALL_ARCHS=ON): there the kernels that use
 * them compile to an empty body (MM_SM80 = 0), and their launchers refuse
 * a device older than sm_80 before launching (mm_need_sm80). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define MM_SM80 1
#else
#define MM_SM80 0
#endif

/* ---- thread-block clusters (sm_90+; PTX ISA: barrier.cluster, mapa) ------------
 * For the split-K exchanges of rung 10 (10_simt.cu) and of the sm_90a
 * wgmma rung (08_wgmma.cu, whose one-sided exchange also takes st.async
 * from common/bulk_copy.cuh). Below sm_90 the bodies are
 * empty and the launchers refuse a cluster configuration before any launch
 * (mm_need_sm90). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define MM_SM90 1
#else
#define MM_SM90 0
#endif
/* Every thread of every CTA of the cluster arrives, then waits: shared-memory
 * writes before it (local or remote) are visible to the whole cluster after it. */
__device__ __forceinline__ void mm_cluster_sync()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}
/* The shared::cluster address of a shared::cta address in CTA `rank` of the cluster. */
__device__ __forceinline__ unsigned mm_map_rank(unsigned addr, unsigned rank)
{
    unsigned r = addr;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
#else
    (void)rank;
#endif
    return r;
}
__device__ __forceinline__ void mm_st_cluster_v4(unsigned addr, float a, float b, float c, float d)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(a), "f"(b), "f"(c), "f"(d)
                 : "memory");
#else
    (void)addr, (void)a, (void)b, (void)c, (void)d;
#endif
}

/* ---- host side ----------------------------------------------------------------- */

static inline sl_status mm_need_sm80(const char *who)
{
    int cc = 0;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (cc < 80)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: needs sm_80 or newer (cp.async, bf16/TF32 tensor cores); this device "
                                           "is sm_%d",
                       who, cc);
    return SL_OK;
}

static inline sl_status mm_need_sm90(const char *who)
{
    int cc = 0;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (cc < 90)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: needs sm_90 or newer (thread-block clusters); this device is sm_%d", who,
                       cc);
    return SL_OK;
}

/* Grid of ceil(N / bn) x ceil(M / bm) blocks, checked against the limits. */
static inline sl_status mm_grid(const sl_mm *p, int bm, int bn, const char *who, dim3 *g)
{
    const int64_t gx = (p->n + bn - 1) / bn, gy = (p->m + bm - 1) / bm;
    if (gx > 0x7fffffff || gy > 65535)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %lldx%lld needs a grid of %lldx%lld blocks, above the limits",
                       who, (long long)p->m, (long long)p->n, (long long)gx, (long long)gy);
    *g = dim3((unsigned)gx, (unsigned)gy, 1);
    return SL_OK;
}

/* 16-byte vector path allowed: the base 16-byte aligned and every row start too. */
static inline bool mm_vec_ok(const void *base, int64_t ld, size_t elem)
{
    return ((uintptr_t)base % 16 == 0) && ((size_t)ld * elem) % 16 == 0;
}

/* The cp.async 16-byte path (rungs 5-7) also needs rows made of whole
 * 16-byte chunks (cols x elem a multiple of 16): a chunk cut by the row's
 * end is copied with src-size < 16, and compute-sanitizer memcheck counts
 * it as a 16-byte read, past the allocation on the last row (found by
 * test_gpu_matmul's tight-allocation cases, issue 12 second pass). */
static inline bool mm_cp16_ok(const void *base, int64_t ld, int64_t cols, size_t elem)
{
    return mm_vec_ok(base, ld, elem) && ((size_t)cols * elem) % 16 == 0;
}

static inline sl_status mm_need_dtype(const sl_mm *p, unsigned mask, const char *who)
{
    if (!(mask & (1u << p->dtype)))
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: dtype %s not offered by this rung", who, sl_dtype_name(p->dtype));
    return SL_OK;
}

#endif /* SL_MM_COMMON_CUH */
