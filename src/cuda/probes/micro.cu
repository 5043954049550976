/*
 * micro.cu - the kernels behind the "l1", "const" and "divergence" probes
 * (src/lab/probes/l1.c, constant.c, divergence.c; issue 11, seed 004).
 * micro_ops.c wraps them for sl_probe_ops.micro (src/core/micro_ops.h,
 * which documents what each measures); the host-side expected results of
 * their checks are here, beside the kernels whose work they mirror.
 *
 *  - probe_l1: one block of 1024 threads per SM reads its own buffer
 *    (ws bytes) with ld.global.ca (cached in L1), 4- or 16-byte words,
 *    every warp access 32 consecutive words; a wrapping 32-bit checksum
 *    per block. Compiled with the largest L1 carve-out.
 *  - probe_const: lane l loads __constant__ word ((l mod k) + i) mod 256,
 *    k distinct addresses per warp access; a checksum per block.
 *  - probe_diverge: dependent FFMA chains on up to 8 code paths, the path
 *    chosen by thread group, lane or warp; every thread's result stored.
 *
 * Timing: clock64 between two block barriers around the timed loop (the
 * SM's cycles), and events around the launch (micro_ops.c).
 */
#include "../common.cuh"
#include "block_out.cuh"

#define MICRO_THREADS 1024
#define MICRO_HASH 2654435761u
#define MICRO_UNROLL 8
#define CONST_WORDS 256

/* ---- L1 ------------------------------------------------------------------- */

template <int W>
static __device__ __forceinline__ uint32_t l1_load(const char *p)
{
    if (W == 4) {
        uint32_t x;
        asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(x) : "l"(p));
        return x;
    } else {
        uint32_t x, y, z, w;
        asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(p));
        return x + y + z + w;
    }
}

/* out[2 b] = block b's clocks over the timed loop, out[2 b + 1] = its
 * checksum. buf: blocks x ws bytes; word (32-bit) k of every block's
 * buffer holds k x MICRO_HASH. mask = ws / W - 1 (ws / W a power of two,
 * >= MICRO_THREADS); steps a multiple of MICRO_UNROLL. */
template <int W>
static __global__ void __launch_bounds__(MICRO_THREADS, 1)
    probe_l1(const char *buf, size_t ws, uint32_t mask, int steps, unsigned long long *out)
{
    const char *mine = buf + (size_t)blockIdx.x * ws;
    const uint32_t t = threadIdx.x;
    uint32_t acc = 0;
    for (uint32_t i = t; i <= mask; i += MICRO_THREADS) /* the untimed pass: into L1 */
        acc += l1_load<W>(mine + (size_t)i * W);
    __syncthreads();
    const long long t0 = clock64();
    for (int j = 0; j < steps; j += MICRO_UNROLL) {
        uint32_t v[MICRO_UNROLL];
#pragma unroll
        for (int u = 0; u < MICRO_UNROLL; u++)
            v[u] = l1_load<W>(mine + (size_t)((t + (uint32_t)(j + u) * MICRO_THREADS) & mask) * W);
#pragma unroll
        for (int u = 0; u < MICRO_UNROLL; u++)
            acc += v[u];
    }
    __syncthreads();
    const long long t1 = clock64();
    probe_block_out(acc, t0, t1, out);
}

static __global__ void micro_fill(uint32_t *p, size_t words_per_block, size_t words)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (uint32_t)(i % words_per_block) * MICRO_HASH;
}

extern "C" sl_status sl_cuda_micro_fill(uint32_t *p, size_t words_per_block, size_t words, cudaStream_t stream)
{
    micro_fill<<<1024, 256, 0, stream>>>(p, words_per_block, words);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* The checksum one block must return (wrapping). */
extern "C" uint32_t sl_cuda_micro_l1_expected(int word_bytes, size_t ws, int steps)
{
    const uint32_t nwords = (uint32_t)(ws / (size_t)word_bytes), mask = nwords - 1, parts = (uint32_t)word_bytes / 4;
    /* value of W-byte word i: the sum of its 32-bit parts */
    uint32_t warm = 0; /* the untimed pass reads every word once */
    for (uint32_t i = 0; i < nwords; i++)
        for (uint32_t c = 0; c < parts; c++)
            warm += (i * parts + c) * MICRO_HASH;
    /* step j: the 1024 threads read words (t + 1024 j) & mask, t < 1024:
     * 1024 consecutive words starting at (1024 j) & mask (nwords >= 1024
     * and a multiple of it, so no wrap inside a step) */
    uint32_t timed = 0;
    for (int j = 0; j < steps; j++) {
        const uint32_t start = ((uint32_t)j * MICRO_THREADS) & mask;
        for (uint32_t t = 0; t < MICRO_THREADS; t++)
            for (uint32_t c = 0; c < parts; c++)
                timed += ((start + t) * parts + c) * MICRO_HASH;
    }
    return warm + timed;
}

extern "C" sl_status sl_cuda_micro_l1(int word_bytes, const void *buf, size_t ws, int steps, int blocks,
                                      unsigned long long *out, cudaStream_t stream)
{
    const uint32_t mask = (uint32_t)(ws / (size_t)word_bytes) - 1;
    if (word_bytes == 4) {
        SL_CUDA_TRY(cudaFuncSetAttribute(probe_l1<4>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
        probe_l1<4><<<blocks, MICRO_THREADS, 0, stream>>>((const char *)buf, ws, mask, steps, out);
    } else {
        SL_CUDA_TRY(cudaFuncSetAttribute(probe_l1<16>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
        probe_l1<16><<<blocks, MICRO_THREADS, 0, stream>>>((const char *)buf, ws, mask, steps, out);
    }
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* ---- constant cache ------------------------------------------------------- */

static __constant__ uint32_t c_micro[CONST_WORDS];

/* out as probe_l1's. accesses: per thread, a multiple of MICRO_UNROLL. The
 * index depends on the loop counter, so no load can be hoisted, and on the
 * lane through `base`: k distinct words per warp access. */
static __global__ void __launch_bounds__(MICRO_THREADS, 1) probe_const(int distinct, int accesses,
                                                                       unsigned long long *out)
{
    const uint32_t t = threadIdx.x, base = (t & 31) % (uint32_t)distinct;
    uint32_t acc = 0;
    __syncthreads();
    const long long t0 = clock64();
    for (int i = 0; i < accesses; i += MICRO_UNROLL) {
#pragma unroll
        for (int u = 0; u < MICRO_UNROLL; u++)
            acc += c_micro[(base + (uint32_t)(i + u)) & (CONST_WORDS - 1)];
    }
    __syncthreads();
    const long long t1 = clock64();
    probe_block_out(acc, t0, t1, out);
}

extern "C" sl_status sl_cuda_micro_const_init(cudaStream_t stream)
{
    uint32_t h[CONST_WORDS];
    for (uint32_t i = 0; i < CONST_WORDS; i++)
        h[i] = (i + 1) * MICRO_HASH;
    SL_CUDA_TRY(cudaMemcpyToSymbolAsync(c_micro, h, sizeof h, 0, cudaMemcpyHostToDevice, stream));
    return SL_OK;
}

extern "C" uint32_t sl_cuda_micro_const_expected(int distinct, int accesses)
{
    uint32_t sum = 0;
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t i = 0; i < (uint32_t)accesses; i++)
            sum += (((lane % (uint32_t)distinct + i) & (CONST_WORDS - 1)) + 1) * MICRO_HASH;
    return sum * (MICRO_THREADS / 32);
}

extern "C" sl_status sl_cuda_micro_const(int distinct, int accesses, int blocks, unsigned long long *out,
                                         cudaStream_t stream)
{
    probe_const<<<blocks, MICRO_THREADS, 0, stream>>>(distinct, accesses, out);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* ---- warp divergence ------------------------------------------------------ */

#define DIV_BLOCK 256

/* Path P: `iters` dependent FFMAs, a = a x m_P + c_P, with constants of its
 * own, exact in f32 (m = 1 - (P + 1) 2^-20, c = (P + 1) 2^-10), so that no
 * contraction or folding can make the host's mirror
 * (sl_cuda_micro_diverge_ref) differ. */
template <int P>
static __device__ __forceinline__ float div_path(float a, int iters)
{
    const float m = 1.0f - (float)(P + 1) * 9.5367431640625e-07f, c = (float)(P + 1) * 0.0009765625f; /* exact */
#pragma unroll 16
    for (int i = 0; i < iters; i++)
        a = fmaf(a, m, c);
    return a;
}

static __device__ __forceinline__ int div_choose(unsigned tid, int mode, int g)
{
    const unsigned lane = tid % 32u, warp = tid / 32u;
    if (mode == 0)
        return (int)((tid / (unsigned)g) % 2u);
    if (mode == 1)
        return (int)(lane % (unsigned)g);
    return (int)(warp % (unsigned)g);
}

static __global__ void __launch_bounds__(DIV_BLOCK) probe_diverge(float *out, int mode, int g, int iters)
{
    const unsigned tid = blockIdx.x * DIV_BLOCK + threadIdx.x;
    const float a0 = (float)(tid & 255u) * 1e-3f;
    float a;
    switch (div_choose(tid, mode, g)) {
    case 0: a = div_path<0>(a0, iters); break;
    case 1: a = div_path<1>(a0, iters); break;
    case 2: a = div_path<2>(a0, iters); break;
    case 3: a = div_path<3>(a0, iters); break;
    case 4: a = div_path<4>(a0, iters); break;
    case 5: a = div_path<5>(a0, iters); break;
    case 6: a = div_path<6>(a0, iters); break;
    default: a = div_path<7>(a0, iters); break;
    }
    out[tid] = a;
}

/* The host's result for thread tid: the same path's chain with fmaf (C's
 * fused multiply-add, one rounding, as the GPU's FFMA). */
extern "C" float sl_cuda_micro_diverge_ref(unsigned tid, int mode, int g, int iters)
{
    unsigned p;
    if (mode == 0)
        p = (tid / (unsigned)g) % 2u;
    else if (mode == 1)
        p = (tid % 32u) % (unsigned)g;
    else
        p = (tid / 32u) % (unsigned)g;
    if (p > 7)
        p = 7;
    const float m = 1.0f - (float)(p + 1) * 9.5367431640625e-07f, c = (float)(p + 1) * 0.0009765625f;
    float a = (float)(tid & 255u) * 1e-3f;
    for (int i = 0; i < iters; i++)
        a = fmaf(a, m, c);
    return a;
}

extern "C" int sl_cuda_micro_diverge_block(void)
{
    return DIV_BLOCK;
}

extern "C" sl_status sl_cuda_micro_diverge(float *out, int mode, int g, int iters, int blocks, cudaStream_t stream)
{
    if (mode < 0 || mode > 2 || g < 1 || (mode != 0 && g > 8))
        return sl_fail(SL_ERR_INVALID_ARG, "probe divergence: mode %d, g %d", mode, g);
    probe_diverge<<<blocks, DIV_BLOCK, 0, stream>>>(out, mode, g, iters);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
