/*
 * block_out.cuh - the end every timed SM probe kernel shares (smem.cu,
 * micro.cu): the block's sum of a per-thread value (a checksum, so the
 * timed accesses stay live, or a mismatch count) and its clocks, written
 * by thread 0 as out[2 b] = t1 - t0, out[2 b + 1] = the sum. Every thread
 * of the block calls it (it has two barriers).
 */
#ifndef SL_PROBE_BLOCK_OUT_CUH
#define SL_PROBE_BLOCK_OUT_CUH

#include <stdint.h>

static __device__ __forceinline__ void probe_block_out(uint32_t v, long long t0, long long t1, unsigned long long *out)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    __shared__ uint32_t total;
    if (threadIdx.x == 0)
        total = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        atomicAdd(&total, v);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = (unsigned long long)(t1 - t0);
        out[2 * blockIdx.x + 1] = total;
    }
}

#endif
