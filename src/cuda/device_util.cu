/*
 * device_util.cu - device-side helpers that are not rungs: filling inputs
 * with the counter-based generator, the fault-injection test hook, and the
 * occupancy queries the launchers share.
 */
#include "common.cuh"
#include "rng.h"

/* One grid-stride pass; the values are a function of (seed, i) only, so
 * the host regenerates them for the CPU reference (src/core/rng.h). */
static __global__ void fill_random_f32(uint32_t *p, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = sl_rand_f32_bits(seed, i);
}

extern "C" sl_status sl_cuda_fill_random(sl_dtype dt, void *p, size_t n, uint64_t seed,
                                         cudaStream_t stream)
{
    if (dt != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "fill_random: dtype %s not implemented", sl_dtype_name(dt));
    if (n == 0)
        return SL_OK;
    int sms = 0;
    int dev;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    SL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t want = (n + 255) / 256;
    unsigned grid = (unsigned)(want < (size_t)sms * 8 ? want : (size_t)sms * 8);
    fill_random_f32<<<grid, 256, 0, stream>>>((uint32_t *)p, n, seed);
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
