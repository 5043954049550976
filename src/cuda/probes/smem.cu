/*
 * smem.cu - the shared-memory kernel behind the "smem" and "bank" probes
 * (src/lab/probes/smem.c, bank.c; issue 11, seed 004 "Shared Memory Bank
 * Conflicts", lines 598-707).
 *
 * One block of SL_SMEM_THREADS (32 warps) per SM, every SM busy. Every lane
 * of every warp accesses, iters x SL_SMEM_UNROLL times (iters = 512 for the
 * measurement, 2 in the sanitizer's light mode), the word of
 * W = 4, 8 or 16 bytes at word index (lane x stride) mod the array's words:
 * PTX ld/st.volatile.shared, so no access is merged, hoisted or dropped.
 * The block reads its SM clock (clock64) after a barrier before the loop
 * and after one behind it; cycles per warp access = block cycles / (32
 * warps x accesses per warp): the throughput of the shared-memory pipe,
 * which an n-way bank conflict divides by n.
 *
 * Checks: a load kernel sums what it loaded (wrapping 32-bit, the word's
 * 32-bit parts added) into one counter per block; the host knows the array
 * (word k holds k x 2654435761) and so the sum. A store kernel stores
 * lane-dependent values, then every lane reads its word back after a
 * barrier and counts mismatches.
 */
#include "../common.cuh"
#include "block_out.cuh"

#define SL_SMEM_THREADS 1024
#define SL_SMEM_BYTES 16384
#define SL_SMEM_UNROLL 16
#define SL_SMEM_HASH 2654435761u

template <int W, bool STORE>
static __device__ __forceinline__ uint32_t smem_access(uint32_t addr, uint32_t v)
{
    if (W == 4) {
        if (STORE) {
            asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
            return 0;
        }
        uint32_t x;
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
        return x;
    } else if (W == 8) {
        if (STORE) {
            asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %1};" ::"r"(addr), "r"(v) : "memory");
            return 0;
        }
        uint32_t x, y;
        asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr) : "memory");
        return x + y;
    } else {
        if (STORE) {
            asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(addr), "r"(v) : "memory");
            return 0;
        }
        uint32_t x, y, z, w;
        asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                     : "r"(addr)
                     : "memory");
        return x + y + z + w;
    }
}

/* out[2 b] = block b's cycles, out[2 b + 1] = its checksum (loads) or
 * mismatch count (stores). */
template <int W, bool STORE>
static __global__ void __launch_bounds__(SL_SMEM_THREADS) probe_smem(int stride, int iters, unsigned long long *out)
{
    __shared__ __align__(16) uint32_t sm[SL_SMEM_BYTES / 4];
    for (int i = threadIdx.x; i < SL_SMEM_BYTES / 4; i += SL_SMEM_THREADS)
        sm[i] = (uint32_t)i * SL_SMEM_HASH;
    const int lane = threadIdx.x & 31;
    const int word = (lane * stride) % (SL_SMEM_BYTES / W);
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(sm) + (uint32_t)(word * W);
    const uint32_t v = 0x9e3779b9u * (uint32_t)(lane + 1);
    uint32_t acc = 0;
    __syncthreads();
    const long long t0 = clock64();
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < SL_SMEM_UNROLL; u++)
            acc += smem_access<W, STORE>(addr, v);
    }
    __syncthreads();
    const long long t1 = clock64();
    uint32_t check = acc;
    if (STORE) {
        /* every warp stored lane's v to this lane's word: all its parts hold v */
        check = 0;
        for (int c = 0; c < W / 4; c++)
            check += sm[word * (W / 4) + c] != v;
    }
    probe_block_out(check, t0, t1, out);
}

template <int W>
static void launch(int stride, int store, int iters, int blocks, unsigned long long *out, cudaStream_t stream)
{
    if (store)
        probe_smem<W, true><<<blocks, SL_SMEM_THREADS, 0, stream>>>(stride, iters, out);
    else
        probe_smem<W, false><<<blocks, SL_SMEM_THREADS, 0, stream>>>(stride, iters, out);
}

/* Warp accesses each warp issues in a launch of `iters` iterations
 * (512 for the measurement, 2 under the sanitizer: probe_ops.c). */
extern "C" int sl_cuda_probe_smem_accesses(int iters)
{
    return iters * SL_SMEM_UNROLL;
}

/* The expected checksum of one block of a load kernel (wrapping). */
extern "C" uint32_t sl_cuda_probe_smem_expected(int word_bytes, int stride, int iters)
{
    uint32_t sum = 0;
    for (int lane = 0; lane < 32; lane++) {
        const int word = (lane * stride) % (SL_SMEM_BYTES / word_bytes);
        uint32_t val = 0;
        for (int c = 0; c < word_bytes / 4; c++)
            val += (uint32_t)(word * (word_bytes / 4) + c) * SL_SMEM_HASH;
        sum += val * (uint32_t)(iters * SL_SMEM_UNROLL);
    }
    return sum * (uint32_t)(SL_SMEM_THREADS / 32);
}

/* One launch of `blocks` blocks (one per SM), timed with start/stop; the
 * per-block cycles and checks come back in host[2 x blocks]. out: device
 * buffer of 2 x blocks words. */
extern "C" sl_status sl_cuda_probe_smem(int word_bytes, int stride, int store, int iters, int blocks,
                                        unsigned long long *out,
                                        unsigned long long *host, cudaStream_t stream, cudaEvent_t start,
                                        cudaEvent_t stop, double *ms)
{
    if ((word_bytes != 4 && word_bytes != 8 && word_bytes != 16) || stride < 1 || blocks < 1 || iters < 1)
        return sl_fail(SL_ERR_INVALID_ARG, "probe_smem: word %d B, stride %d, %d blocks, %d iterations", word_bytes,
                       stride, blocks, iters);
    SL_CUDA_TRY(cudaEventRecord(start, stream));
    if (word_bytes == 4)
        launch<4>(stride, store, iters, blocks, out, stream);
    else if (word_bytes == 8)
        launch<8>(stride, store, iters, blocks, out, stream);
    else
        launch<16>(stride, store, iters, blocks, out, stream);
    SL_CUDA_LAUNCHED();
    SL_CUDA_TRY(cudaEventRecord(stop, stream));
    SL_CUDA_TRY(cudaEventSynchronize(stop));
    float t = 0.0f;
    SL_CUDA_TRY(cudaEventElapsedTime(&t, start, stop));
    *ms = t;
    SL_CUDA_TRY(cudaMemcpyAsync(host, out, 2 * (size_t)blocks * sizeof *host, cudaMemcpyDeviceToHost, stream));
    SL_CUDA_TRY(cudaStreamSynchronize(stream));
    return SL_OK;
}
