/*
 * probes.cu - the microbenchmark kernels behind `streamlab probe`
 * (src/lab/probes/ drives them). Each is the simplest kernel that isolates
 * one behaviour of the memory system; every one has a check (a checksum,
 * a mismatch count, a chase end index) so a probe can prove it did the work.
 */
#include "../common.cuh"
#include "stats.h"

/* ---- read: wrapping 32-bit sum of every word (order-independent, so any
 * traversal gives the same checksum) ------------------------------------ */

template <int VEC>
struct vec_of;
template <>
struct vec_of<1> {
    typedef uint32_t t;
};
template <>
struct vec_of<2> {
    typedef uint2 t;
};
template <>
struct vec_of<4> {
    typedef uint4 t;
};

static __device__ __forceinline__ uint32_t hsum(uint32_t v) { return v; }
static __device__ __forceinline__ uint32_t hsum(uint2 v) { return v.x + v.y; }
static __device__ __forceinline__ uint32_t hsum(uint4 v) { return v.x + v.y + v.z + v.w; }

/* A warp's wrapping sum, added into one of SL_PROBE_SPREAD counters (picked
 * by warp) so that the atomics of millions of warps spread over many L2
 * slices instead of queueing on one address (one address held the first
 * version of this probe to ~1 TB/s), and with no block barrier, so a warp
 * retires as soon as its own loads are in (a block-wide reduction made
 * every block wait for its slowest warp and cut small-tile points by ~40%). */
#define SL_PROBE_SPREAD 4096
static __device__ __forceinline__ void warp_sum_to(uint32_t acc, uint32_t *counters)
{
    for (int d = 16; d > 0; d /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, d);
    if ((threadIdx.x & 31) == 0) {
        size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
        atomicAdd(&counters[warp % SL_PROBE_SPREAD], acc);
    }
}

template <typename V, bool CG>
static __device__ __forceinline__ V load_vec(const V *p)
{
    if (CG)
        return __ldcg(p); /* ld.global.cg: cached in L2 only, so a re-read cannot hit L1 */
    return *p;
}

/* Tiles of blockDim.x x ILP vectors; thread t of a tile loads t, t +
 * blockDim.x, ... (ILP independent loads, 16 B apart across the warp and
 * blockDim.x vectors apart between loads, so a thread's loads sit in
 * neighbouring DRAM rows). Block b takes tiles b, b + gridDim.x, ..., so at
 * any moment the resident blocks cover one compact window of tiles. With a
 * grid of one block per tile this is the ceiling kernel; with SMs x k
 * blocks it is a persistent kernel holding k blocks per SM. */
template <int VEC, int ILP, bool CG>
static __global__ void probe_read(const typename vec_of<VEC>::t *src, size_t nvec, int passes, uint32_t *counters)
{
    typedef typename vec_of<VEC>::t V;
    const size_t tile = (size_t)blockDim.x * ILP;
    const size_t ntiles = (nvec + tile - 1) / tile;
    uint32_t acc = 0;
    for (int p = 0; p < passes; p++) {
        for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
            const size_t base = t * tile + threadIdx.x;
            V r[ILP];
#pragma unroll
            for (int k = 0; k < ILP; k++) {
                size_t j = base + (size_t)k * blockDim.x;
                if (j < nvec)
                    r[k] = load_vec<V, CG>(src + j);
                else
                    memset(&r[k], 0, sizeof r[k]);
            }
#pragma unroll
            for (int k = 0; k < ILP; k++)
                acc += hsum(r[k]);
        }
    }
    warp_sum_to(acc, counters);
}

/* The counters of one read into *sum: one block. */
static __global__ void probe_reduce(const uint32_t *partial, size_t n, uint32_t *sum)
{
    uint32_t acc = 0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        acc += partial[i];
    __shared__ uint32_t tmp[1024];
    tmp[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            tmp[threadIdx.x] += tmp[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *sum = tmp[0];
}

static const void *read_kernel_for(int vec, int ilp, int cg)
{
#define RK(V, I)                                                                \
    if (vec == V && ilp == I)                                                   \
        return cg ? (const void *)probe_read<V, I, true> : (const void *)probe_read<V, I, false>;
    RK(1, 1) RK(1, 2) RK(1, 4) RK(1, 8) RK(2, 1) RK(2, 2) RK(2, 4) RK(2, 8)
    RK(4, 1) RK(4, 2) RK(4, 4) RK(4, 8)
#undef RK
    return NULL;
}

/* Dynamic shared memory that leaves exactly `target` blocks of fn resident
 * per SM (or as close from below as the hardware allows): the smallest
 * reservation whose occupancy is <= target. Occupancy falls as the
 * reservation grows, so a binary search over [0, max] finds it. */
static sl_status smem_search(const void *fn, int block, int target, size_t *smem, int *got)
{
    int dev, max_smem = 0, occ = 0;
    cudaFuncAttributes fa;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    SL_CUDA_TRY(cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    SL_CUDA_TRY(cudaFuncGetAttributes(&fa, fn));
    max_smem -= (int)fa.sharedSizeBytes; /* the opt-in limit covers static + dynamic */
    SL_CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
    SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, block, 0));
    if (occ <= target) {
        *smem = 0;
        *got = occ;
        return SL_OK;
    }
    size_t lo = 0, hi = (size_t)max_smem; /* occupancy(lo) > target >= occupancy(hi) */
    while (hi - lo > 128) {
        size_t mid = (lo + hi) / 2 / 128 * 128;
        if (mid <= lo)
            mid = lo + 128;
        SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, block, mid));
        if (occ > target)
            lo = mid;
        else
            hi = mid;
    }
    SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, block, hi));
    *smem = hi;
    *got = occ;
    return SL_OK;
}

/* smem_search, remembered: the search and the attribute call stay out of
 * the timed region after a point's first (warm-up) launch. */
static sl_status smem_for_blocks(const void *fn, int block, int target, size_t *smem, int *got)
{
    static struct {
        const void *fn;
        int block, target, dev, got;
        size_t smem;
    } memo[256];
    static int nmemo;
    int dev;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    for (int i = 0; i < nmemo; i++)
        if (memo[i].fn == fn && memo[i].block == block && memo[i].target == target && memo[i].dev == dev) {
            *smem = memo[i].smem;
            *got = memo[i].got;
            return SL_OK;
        }
    sl_status st = smem_search(fn, block, target, smem, got);
    if (st == SL_OK && nmemo < 256) {
        memo[nmemo].fn = fn;
        memo[nmemo].block = block;
        memo[nmemo].target = target;
        memo[nmemo].dev = dev;
        memo[nmemo].smem = *smem;
        memo[nmemo].got = *got;
        nmemo++;
    }
    return st;
}

/* words: 32-bit words to read (a multiple of vec); vec: 1, 2 or 4 words per
 * load; ilp: 1, 2, 4 or 8. Always one tile per block (blockDim x ilp
 * vectors), dispatched in order, so the resident blocks cover one compact
 * address window: persistent grids spread it over tens of MB and lose
 * 10-20% on the H200 (docs/probes.md). With passes > 1 the grid is
 * persistent, so that each pass sweeps the whole working set.
 * warps_per_sm: 0 leaves occupancy to the hardware (the ceiling); W > 0
 * holds W warps per SM by reserving shared memory (blocks of 32 W threads
 * for W < 8, else 256): bytes in flight per SM = W x 32 x ilp x vec x 4.
 * *warps_out returns the warps granted. cg: ld.global.cg (bypass L1). sum:
 * SL_PROBE_SUM_WORDS words of device memory whose counters the launch adds
 * into; sl_cuda_probe_read_collect reads them out. Only the read kernel is
 * enqueued, so a timed region holds nothing else. */
extern "C" sl_status sl_cuda_probe_read(const void *src, size_t words, int vec, int ilp, int warps_per_sm,
                                        int passes, int cg, uint32_t *sum, cudaStream_t stream, int *warps_out)
{
    const void *fn = read_kernel_for(vec, ilp, cg);
    if (!fn || words % (size_t)vec)
        return sl_fail(SL_ERR_INVALID_ARG, "probe_read: no kernel for vec %d, ilp %d, words %zu", vec, ilp, words);
    size_t nvec = words / (size_t)vec;
    int block = warps_per_sm == 0 ? 256 : warps_per_sm < 8 ? 32 * warps_per_sm : 256;
    size_t smem = 0;
    int per_sm = 0;
    sl_status st;
    if (warps_per_sm == 0) {
        SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, 0));
    } else if ((st = smem_for_blocks(fn, block, warps_per_sm * 32 / block, &smem, &per_sm)) != SL_OK) {
        return st;
    }
    if (warps_out)
        *warps_out = per_sm * block / 32;
    size_t grid = (nvec + (size_t)block * ilp - 1) / ((size_t)block * ilp);
    if (passes > 1) {
        /* Re-reads must sweep the whole working set between visits to a
         * tile (one tile per block would re-read it at once, from cache,
         * whatever the working set): a persistent grid, every SM full. */
        int dev, sms;
        SL_CUDA_TRY(cudaGetDevice(&dev));
        SL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        size_t persistent = (size_t)sms * per_sm;
        grid = grid < persistent ? grid : persistent;
    }
    if (grid == 0)
        grid = 1;
    if (grid > 0x7fffffffu)
        return sl_fail(SL_ERR_INVALID_ARG, "probe_read: grid too large");
    /* sum[1 ..]: the spread counters; every launch adds into them */
    uint32_t *counters = sum + 1;
    void *args[] = {(void *)&src, &nvec, &passes, &counters};
    SL_CUDA_TRY(cudaLaunchKernel(fn, dim3((unsigned)grid), dim3(block), args, smem, stream));
    return SL_OK;
}

/* The wrapping sum of everything read since the last collect, into *total;
 * resets the counters. Waits. */
extern "C" sl_status sl_cuda_probe_read_collect(uint32_t *sum, cudaStream_t stream, uint32_t *total)
{
    probe_reduce<<<1, 1024, 0, stream>>>(sum + 1, SL_PROBE_SPREAD, sum);
    SL_CUDA_LAUNCHED();
    SL_CUDA_TRY(cudaMemcpyAsync(total, sum, sizeof *total, cudaMemcpyDeviceToHost, stream));
    SL_CUDA_TRY(cudaMemsetAsync(sum, 0, (1 + SL_PROBE_SPREAD) * sizeof *sum, stream));
    SL_CUDA_TRY(cudaStreamSynchronize(stream));
    return SL_OK;
}

/* ---- write: a value into every `stride`-th word ------------------------- */

/* Word i gets value + i: data that differs everywhere, so no memory-side
 * compression or constant detection can flatter the write ceiling. */
static __global__ void probe_write4(uint4 *dst, size_t n4, uint32_t v)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        uint32_t w = v + (uint32_t)(4 * i);
        dst[i] = make_uint4(w, w + 1, w + 2, w + 3);
    }
}

static __global__ void probe_write_strided(uint32_t *dst, size_t count, size_t stride, uint32_t v)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        dst[i * stride] = v + (uint32_t)i;
}

/* dst[i * stride] = value + i. stride 1 with count % 4 == 0 and a
 * 16-byte-aligned dst uses 16-byte stores (the write ceiling); anything else
 * one 4-byte store per thread. */
extern "C" sl_status sl_cuda_probe_write(void *dst, size_t count, size_t stride, uint32_t value, cudaStream_t stream)
{
    unsigned grid = 0;
    sl_status st;
    if (stride == 1 && count % 4 == 0 && ((uintptr_t)dst & 15) == 0) {
        if ((st = sl_grid_for(count / 4, 256, "probe_write", &grid)) != SL_OK)
            return st;
        probe_write4<<<grid, 256, 0, stream>>>((uint4 *)dst, count / 4, value);
    } else {
        if ((st = sl_grid_for(count, 256, "probe_write", &grid)) != SL_OK)
            return st;
        probe_write_strided<<<grid, 256, 0, stream>>>((uint32_t *)dst, count, stride, value);
    }
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* ---- copies -------------------------------------------------------------- */

static __global__ void probe_copy4(uint4 *dst, const uint4 *src, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4)
        dst[i] = src[i];
}

/* c = a + b over f32, one 16-byte vector per input per thread. DEMOTE: the
 * loads as ld.global.lu ("last use": the line may go first, PTX ISA "Cache
 * Operators"), the store plain; the ceilings probe times both (issue 17:
 * the demoted-load mix factor of docs/model.md). */
template <bool DEMOTE>
static __global__ void probe_add4(float4 *c, const float4 *a, const float4 *b, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        const float4 x = DEMOTE ? __ldlu(a + i) : a[i], y = DEMOTE ? __ldlu(b + i) : b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

extern "C" sl_status sl_cuda_probe_add(void *c, const void *a, const void *b, size_t words, int demote,
                                       cudaStream_t stream)
{
    unsigned grid = 0;
    sl_status st;
    if (words % 4 || ((uintptr_t)a & 15) || ((uintptr_t)b & 15) || ((uintptr_t)c & 15))
        return sl_fail(SL_ERR_INVALID_ARG, "probe_add: needs 16-byte-aligned buffers of a multiple of 4 words");
    if ((st = sl_grid_for(words / 4, 256, "probe_add", &grid)) != SL_OK)
        return st;
    if (demote)
        probe_add4<true><<<grid, 256, 0, stream>>>((float4 *)c, (const float4 *)a, (const float4 *)b, words / 4);
    else
        probe_add4<false><<<grid, 256, 0, stream>>>((float4 *)c, (const float4 *)a, (const float4 *)b, words / 4);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* dst[i] = src[offset + i * stride]: one 4-byte load and store per thread,
 * as in seed 002's offset and strided copies. */
static __global__ void probe_copy_strided(uint32_t *dst, const uint32_t *src, size_t count, size_t stride,
                                          size_t offset)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        dst[i] = src[offset + i * stride];
}

extern "C" sl_status sl_cuda_probe_copy(void *dst, const void *src, size_t words, cudaStream_t stream)
{
    unsigned grid = 0;
    sl_status st;
    if (words % 4 || ((uintptr_t)dst & 15) || ((uintptr_t)src & 15))
        return sl_fail(SL_ERR_INVALID_ARG, "probe_copy: needs 16-byte-aligned buffers of a multiple of 4 words");
    if ((st = sl_grid_for(words / 4, 256, "probe_copy", &grid)) != SL_OK)
        return st;
    probe_copy4<<<grid, 256, 0, stream>>>((uint4 *)dst, (const uint4 *)src, words / 4);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_probe_copy_strided(void *dst, const void *src, size_t count, size_t stride,
                                                size_t offset, cudaStream_t stream)
{
    unsigned grid = 0;
    sl_status st = sl_grid_for(count, 256, "probe_copy_strided", &grid);
    if (st != SL_OK)
        return st;
    probe_copy_strided<<<grid, 256, 0, stream>>>((uint32_t *)dst, (const uint32_t *)src, count, stride, offset);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* ---- checks: count elements that differ from what a probe should have
 * written, on the device (no multi-gigabyte download) ---------------------- */

static __global__ void probe_mismatch(const uint32_t *dst, size_t dst_stride, const uint32_t *src, size_t src_stride,
                                      size_t src_offset, size_t count, uint32_t value, int fill,
                                      unsigned long long *bad)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long mine = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        uint32_t want = fill ? value + (uint32_t)i : src[src_offset + i * src_stride];
        mine += dst[i * dst_stride] != want;
    }
    if (mine)
        atomicAdd(bad, mine);
}

/* Mismatches of dst[i * dst_stride] against src[src_offset + i * src_stride]
 * (or against value + i, what probe_write wrote, when src is NULL), i <
 * count; waits for the answer. */
extern "C" sl_status sl_cuda_probe_mismatches(const void *dst, size_t dst_stride, const void *src, size_t src_stride,
                                              size_t src_offset, size_t count, uint32_t value, cudaStream_t stream,
                                              uint64_t *out)
{
    unsigned long long *d = NULL;
    SL_CUDA_TRY(cudaMallocAsync((void **)&d, sizeof *d, stream));
    SL_CUDA_TRY(cudaMemsetAsync(d, 0, sizeof *d, stream));
    int dev, sms;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    SL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    probe_mismatch<<<sms * 8, 256, 0, stream>>>((const uint32_t *)dst, dst_stride, (const uint32_t *)src, src_stride,
                                                 src_offset, count, value, src == NULL, d);
    SL_CUDA_LAUNCHED();
    unsigned long long h = 0;
    SL_CUDA_TRY(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, stream));
    SL_CUDA_TRY(cudaFreeAsync(d, stream));
    SL_CUDA_TRY(cudaStreamSynchronize(stream));
    *out = h;
    return SL_OK;
}

/* ---- pointer chase: one thread, each load's address is the previous
 * load's value, so nothing overlaps and the time per step is the latency ---- */

static __global__ void probe_chase(const uint32_t *next, uint32_t start, unsigned long long steps, uint32_t node_words,
                                   uint32_t *end, unsigned long long *cycles)
{
    uint32_t j = start;
    long long t0 = clock64();
    for (unsigned long long s = 0; s < steps; s++)
        j = next[(size_t)j * node_words];
    long long t1 = clock64();
    *end = j;
    *cycles = (unsigned long long)(t1 - t0);
}

/* end and cycles are device pointers; the caller times with events. */
extern "C" sl_status sl_cuda_probe_chase(const void *next, uint32_t start, uint64_t steps, uint32_t node_words,
                                         uint32_t *end, uint64_t *cycles, cudaStream_t stream)
{
    probe_chase<<<1, 1, 0, stream>>>((const uint32_t *)next, start, steps, node_words, end,
                                      (unsigned long long *)cycles);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* ---- launch overhead -------------------------------------------------------- */

static __global__ void probe_empty(void) {}

/* mode 0: `count` launches, each between its own events (returns the median,
 * us); mode 1: `count` launches back to back between two events (us per
 * launch); mode 2: a CUDA graph of `count` launches, replayed between two
 * events (us per kernel). start/stop are the caller's events. */
extern "C" sl_status sl_cuda_probe_launch(int mode, int count, cudaStream_t stream, cudaEvent_t start,
                                          cudaEvent_t stop, double *us)
{
    float ms = 0.0f;
    if (mode == 1) {
        probe_empty<<<1, 32, 0, stream>>>();
        SL_CUDA_TRY(cudaEventRecord(start, stream));
        for (int i = 0; i < count; i++)
            probe_empty<<<1, 32, 0, stream>>>();
        SL_CUDA_LAUNCHED();
        SL_CUDA_TRY(cudaEventRecord(stop, stream));
        SL_CUDA_TRY(cudaEventSynchronize(stop));
        SL_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
        *us = 1e3 * ms / count;
        return SL_OK;
    }
    if (mode == 2) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        SL_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < count; i++)
            probe_empty<<<1, 32, 0, stream>>>();
        SL_CUDA_TRY(cudaStreamEndCapture(stream, &graph));
        SL_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
        SL_CUDA_TRY(cudaGraphLaunch(exec, stream)); /* warm-up: uploads the graph */
        SL_CUDA_TRY(cudaEventRecord(start, stream));
        SL_CUDA_TRY(cudaGraphLaunch(exec, stream));
        SL_CUDA_TRY(cudaEventRecord(stop, stream));
        SL_CUDA_TRY(cudaEventSynchronize(stop));
        SL_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
        SL_CUDA_TRY(cudaGraphExecDestroy(exec));
        SL_CUDA_TRY(cudaGraphDestroy(graph));
        *us = 1e3 * ms / count;
        return SL_OK;
    }
    double *t = (double *)malloc((size_t)count * sizeof *t);
    if (!t)
        return sl_fail(SL_ERR_NO_MEMORY, "probe_launch: out of host memory");
    sl_status st = SL_OK;
    for (int i = 0; i < count && st == SL_OK; i++) {
        cudaError_t e = cudaEventRecord(start, stream);
        if (e == cudaSuccess) {
            probe_empty<<<1, 32, 0, stream>>>();
            e = cudaGetLastError();
        }
        if (e == cudaSuccess)
            e = cudaEventRecord(stop, stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(stop);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, start, stop);
        if (e != cudaSuccess)
            st = sl_cuda_fail(e, "timing an empty kernel", __FILE__, __LINE__);
        t[i] = 1e3 * ms;
    }
    sl_stats s;
    if (st == SL_OK && sl_stats_compute(t, (size_t)count, &s) == 0)
        *us = s.median;
    free(t);
    return st;
}
