/*
 * device_util.cu - device-side helpers that are not rungs: filling inputs
 * with the counter-based generator, the fault-injection test hook, and the
 * occupancy queries the launchers share.
 */
#include "common.cuh"
#include "rng.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

/* One grid-stride pass; the values are a function of (seed, i) only, so
 * the host regenerates them for the CPU reference (src/core/rng.h): the
 * fp32 value sl_rand_f32(seed, i), narrowed to the dtype with the same
 * round-to-nearest-even (saturating for fp8) the kernels use, which
 * src/core/dtype_conv.c reproduces on the host; for f64, sl_rand_f64. */
/* The fp32 value rounded to each storage type (round-to-nearest-even;
 * saturating for fp8, as the kernels store); f64 has a stream of its own. */
static __device__ __forceinline__ uint16_t to_f16(float f)
{
    return __half_as_ushort(__float2half_rn(f));
}
static __device__ __forceinline__ uint16_t to_bf16(float f)
{
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}
static __device__ __forceinline__ uint8_t to_e4m3(float f)
{
    return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
}
static __device__ __forceinline__ uint8_t to_e5m2(float f)
{
    return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
}

template <int DT>
static __global__ void fill_random(void *out, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (DT == SL_F32)
            ((uint32_t *)out)[i] = sl_rand_f32_bits(seed, i);
        else if (DT == SL_F64)
            ((unsigned long long *)out)[i] = sl_rand_f64_bits(seed, i);
        else if (DT == SL_F16)
            ((uint16_t *)out)[i] = to_f16(sl_rand_f32(seed, i));
        else if (DT == SL_BF16)
            ((uint16_t *)out)[i] = to_bf16(sl_rand_f32(seed, i));
        else if (DT == SL_FP8_E4M3)
            ((uint8_t *)out)[i] = to_e4m3(sl_rand_f32(seed, i));
        else
            ((uint8_t *)out)[i] = to_e5m2(sl_rand_f32(seed, i));
    }
}

extern "C" sl_status sl_cuda_fill_random(sl_dtype dt, void *p, size_t n, uint64_t seed,
                                         cudaStream_t stream)
{
    if (n == 0)
        return SL_OK;
    int sms = 0;
    int dev;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    SL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t want = (n + 255) / 256;
    unsigned grid = (unsigned)(want < (size_t)sms * 8 ? want : (size_t)sms * 8);
    switch (dt) {
    case SL_F32: fill_random<SL_F32><<<grid, 256, 0, stream>>>(p, n, seed); break;
    case SL_F64: fill_random<SL_F64><<<grid, 256, 0, stream>>>(p, n, seed); break;
    case SL_F16: fill_random<SL_F16><<<grid, 256, 0, stream>>>(p, n, seed); break;
    case SL_BF16: fill_random<SL_BF16><<<grid, 256, 0, stream>>>(p, n, seed); break;
    case SL_FP8_E4M3: fill_random<SL_FP8_E4M3><<<grid, 256, 0, stream>>>(p, n, seed); break;
    case SL_FP8_E5M2: fill_random<SL_FP8_E5M2><<<grid, 256, 0, stream>>>(p, n, seed); break;
    default: return sl_fail(SL_ERR_UNSUPPORTED, "fill_random: dtype %d", (int)dt);
    }
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* Writes through a pointer no allocation can own, so the context takes a
 * real sticky "illegal address" fault, as a buggy kernel would. Used only
 * when STREAMLAB_INJECT_FAULT names a variant (tests of the fault path). */
static __global__ void fault_kernel(float *p)
{
    p[threadIdx.x] = 1.0f;
}

extern "C" sl_status sl_cuda_launch_fault(cudaStream_t stream)
{
    fault_kernel<<<1, 32, 0, stream>>>((float *)(uintptr_t)0x10);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_current_cc(int *cc)
{
    static int cached[SL_MAX_DEVICES];
    int dev;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    if (dev >= 0 && dev < SL_MAX_DEVICES) {
        int v = __atomic_load_n(&cached[dev], __ATOMIC_RELAXED);
        if (v) {
            *cc = v;
            return SL_OK;
        }
    }
    int major, minor;
    SL_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    SL_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    *cc = major * 10 + minor;
    if (dev >= 0 && dev < SL_MAX_DEVICES)
        __atomic_store_n(&cached[dev], *cc, __ATOMIC_RELAXED);
    return SL_OK;
}

sl_status sl_cuda_kernel_attrs(const void *func, int block, size_t dyn_smem, sl_kernel_attrs *out)
{
    cudaFuncAttributes fa;
    SL_CUDA_TRY(cudaFuncGetAttributes(&fa, func));
    int per_sm = 0;
    SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, block, dyn_smem));
    out->regs = fa.numRegs;
    out->local_bytes = (int)fa.localSizeBytes;
    out->static_smem = (int)fa.sharedSizeBytes;
    out->block = block;
    out->blocks_per_sm = per_sm;
    return SL_OK;
}

sl_status sl_cuda_func_attr_once(const void *func, cudaFuncAttribute attr, int value, int *ready)
{
    int dev = 0;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    if (dev >= 0 && dev < SL_MAX_DEVICES && __atomic_load_n(&ready[dev], __ATOMIC_RELAXED))
        return SL_OK;
    SL_CUDA_TRY(cudaFuncSetAttribute(func, attr, value));
    if (dev >= 0 && dev < SL_MAX_DEVICES)
        __atomic_store_n(&ready[dev], 1, __ATOMIC_RELAXED);
    return SL_OK;
}

sl_status sl_cuda_persistent_grid(sl_grid_cache *cache, const void *func, int block, size_t dyn_smem,
                                  int *grid)
{
    int dev;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    if (dev >= 0 && dev < SL_MAX_DEVICES) {
        int g = __atomic_load_n(&cache->grid[dev], __ATOMIC_RELAXED);
        if (g > 0) {
            *grid = g;
            return SL_OK;
        }
    }
    int sms = 0, per_sm = 0;
    SL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, block, dyn_smem));
    if (per_sm < 1)
        return sl_fail(SL_ERR_INTERNAL, "occupancy API says 0 blocks of %d threads fit on an SM", block);
    *grid = sms * per_sm;
    if (dev >= 0 && dev < SL_MAX_DEVICES)
        __atomic_store_n(&cache->grid[dev], *grid, __ATOMIC_RELAXED);
    return SL_OK;
}
