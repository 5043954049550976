/*
 * softmax rung 3: coalesced (seed 002, "Coalescing"). As rung 2 (one block
 * per row, shared-memory tree reductions, three passes), but thread t
 * reads elements t, t + BLOCK, t + 2 BLOCK, ...: at each step the 32 lanes
 * of a warp read 32 consecutive elements, 128 bytes (f32) in 4 sectors,
 * instead of 32 sectors.
 *
 * Expectation: the row's two re-reads hit L2 (a 512 KiB f32 row of 2^17
 * columns, x 132 rows in flight, is 66 MiB: near the 60 MiB L2, so the
 * longest seed rows spill). One block per row and one 4-byte load in flight
 * per thread (512 threads x 4 B = 2 KiB per SM with one block) is far
 * below Little's law's ~40 KiB per SM: latency bound. At M = 128 only 128
 * of 132 SMs work, each on one row.
 */
#include "softmax.cuh"

enum { COAL_BLOCK = 512 };

template <class OP> static __device__ __forceinline__ float coal_tree(float v, float *red)
{
    red[threadIdx.x] = v;
    for (int stride = COAL_BLOCK / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < stride)
            red[threadIdx.x] = OP::apply(red[threadIdx.x], red[threadIdx.x + stride]);
    }
    __syncthreads();
    v = red[0];
    __syncthreads();
    return v;
}

template <int DT> static __global__ void __launch_bounds__(COAL_BLOCK) smx_coalesced(smx_geo g)
{
    __shared__ float red[COAL_BLOCK];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld);
        float m = -CUDART_INF_F;
        for (uint64_t i = threadIdx.x; i < g.cols; i += COAL_BLOCK)
            m = fmaxf(m, smx_ld<DT>(x, i));
        m = coal_tree<smx_max_op>(m, red);
        smx_kahan s = {0.0f, 0.0f};
        for (uint64_t i = threadIdx.x; i < g.cols; i += COAL_BLOCK)
            s.add(expf(smx_ld<DT>(x, i) - m));
        const float inv = 1.0f / coal_tree<smx_sum_op>(s.s, red);
        void *y = smx_row<DT>(g.y, r, g.ld);
        for (uint64_t i = threadIdx.x; i < g.cols; i += COAL_BLOCK)
            smx_st<DT>(y, i, expf(smx_ld<DT>(x, i) - m) * inv);
    }
}

template <int DT> static sl_status launch_coalesced(const sl_args *a)
{
    smx_coalesced<DT><<<smx_row_grid(a->shape.rows), COAL_BLOCK, 0, (cudaStream_t)a->stream>>>(smx_geo_of(a));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_softmax_coalesced(const sl_args *a)
{
    sl_status st = smx_check(a, "coalesced");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return SMX_DISPATCH(a, launch_coalesced, a);
}

extern "C" sl_status sl_cuda_softmax_coalesced_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(SMX_KERNEL_FOR(dt, smx_coalesced), COAL_BLOCK, 0, out);
}
