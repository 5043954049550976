/*
 * dot.cuh - what the CUDA dot rungs share: loading f32 / f64 data as fp64,
 * the block reductions, and the deterministic grid combination.
 *
 * Every rung sums in fp64 (an f32 product is exact in fp64) along a fixed
 * order: each thread its own elements in a fixed sequence, each block its
 * threads in a fixed tree, and the last block to finish sums the blocks'
 * partials in block order. Which block is last varies from run to run;
 * what it computes does not, so the result is the same bits every time for
 * a given grid (CUDA C++ Programming Guide, "Memory Fence Functions": the
 * __threadfence + atomic ticket pattern of its sum example).
 */
#ifndef SL_OP_DOT_CUH
#define SL_OP_DOT_CUH

#include "common.cuh"
#include "dot.h"

/* The workspace: ticket counter, then the partials (dot.h). */
struct dot_ws {
    unsigned int *ticket;
    double *partial;
};

static inline dot_ws dot_workspace_of(const sl_args *x)
{
    dot_ws w;
    w.ticket = (unsigned int *)x->workspace;
    w.partial = (double *)((char *)x->workspace + 256);
    return w;
}

/* Sum over the warp, in a fixed butterfly order (xor shuffles). */
static __device__ __forceinline__ double warp_sum(double v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Sum over a block of BLOCK threads: warp sums, then warp 0 sums those.
 * The result is valid in thread 0. */
template <int BLOCK>
static __device__ __forceinline__ double block_sum(double v)
{
    __shared__ double warps[BLOCK / 32];
    v = warp_sum(v);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0)
        warps[w] = v;
    __syncthreads();
    v = threadIdx.x < BLOCK / 32 ? warps[threadIdx.x] : 0.0;
    if (w == 0)
        v = warp_sum(v);
    return v;
}

/* Thread 0 of each block has its partial in v: store it; the last block to
 * arrive sums every partial in block order and rounds once into the output
 * dtype. The ticket starts at zero because the launcher zeroes it on the
 * call's stream just before the kernel (dot_zero_ticket): the workspace is
 * the context's scratch, which other ops (rmsnorm_bwd's dw partials,
 * cross-entropy's statistics) overwrite between two dots, so a ticket the
 * kernel reset for the next launch did not survive them (the Python CUDA
 * tests found it: sl_dot returned 0 after sl_rmsnorm_bwd on one context). */
template <int BLOCK, class OUT>
static __device__ __forceinline__ void grid_finish(double v, dot_ws w, OUT *result)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        w.partial[blockIdx.x] = v;
        __threadfence(); /* the partial is visible device-wide before the ticket */
        last = atomicAdd(w.ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    double s = 0.0;
    /* thread t sums partials t, t + BLOCK, ... in order; then the block tree */
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BLOCK)
        s += __ldcg(&w.partial[i]);
    s = block_sum<BLOCK>(s);
    if (threadIdx.x == 0)
        *result = (OUT)s; /* one rounding, to nearest-even */
}

/* Zero the ticket on the call's stream (a memset node under graph capture). */
static inline sl_status dot_zero_ticket(const sl_args *x)
{
    SL_CUDA_TRY(cudaMemsetAsync(x->workspace, 0, sizeof(unsigned int), (cudaStream_t)x->stream));
    return SL_OK;
}

/* The grid a dot rung runs: SMs x resident blocks, within the workspace. */
static inline sl_status dot_grid(sl_grid_cache *cache, const void *fn, int block, int *grid)
{
    sl_status st = sl_cuda_persistent_grid(cache, fn, block, 0, grid);
    if (st == SL_OK && *grid > SL_DOT_MAX_BLOCKS)
        *grid = SL_DOT_MAX_BLOCKS;
    return st;
}

static inline sl_status dot_check_args(const sl_args *x)
{
    if (x->dtype != SL_F32 && x->dtype != SL_F64)
        return sl_fail(SL_ERR_UNSUPPORTED, "dot is offered in f32 and f64, not %s", sl_dtype_name(x->dtype));
    if (!x->workspace || x->workspace_bytes < SL_DOT_WORKSPACE)
        return sl_fail(SL_ERR_INVALID_ARG, "dot: needs a workspace of %d bytes", SL_DOT_WORKSPACE);
    return SL_OK;
}

#endif /* SL_OP_DOT_CUH */
