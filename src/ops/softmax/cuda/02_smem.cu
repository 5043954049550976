/*
 * softmax rung 2: one block per row, shared-memory reductions (seed 002,
 * "Reduce"). Thread t of the block owns the contiguous chunk
 * [t c, (t + 1) c) of the row, c = ceil(N / BLOCK): it takes its chunk's
 * maximum, the block combines the BLOCK maxima in a shared-memory tree
 * (halving strides, a barrier per level) and broadcasts; the same for the
 * sum of exp(x - m); then each thread writes its chunk. Fixed from the
 * seed: -inf (not FLOAT_MIN, the smallest positive float) as the identity
 * of max, which was wrong for rows of negative numbers.
 *
 * Change from rung 1: O(N) work per row instead of O(N^2), three passes
 * over the row (read for max, read for sum, read + write), the re-reads
 * from L2 / L1 for a row that fits there. Expectation: the loads are not
 * coalesced: at one instant the 32 lanes of a warp read 32 addresses c
 * elements apart, 32 sectors for 128 useful bytes, and each sector is
 * fetched again from L1/L2 for the lane's next element. For long rows
 * that is a load-pipe bound far below DRAM: a few hundred GB/s.
 */
#include "softmax.cuh"

enum { SMEM_BLOCK = 512 };

/* The shared-memory tree of the seed, over BLOCK values in red[]; every
 * thread returns the result. */
template <class OP> static __device__ __forceinline__ float smem_tree(float v, float *red)
{
    red[threadIdx.x] = v;
    for (int stride = SMEM_BLOCK / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < stride)
            red[threadIdx.x] = OP::apply(red[threadIdx.x], red[threadIdx.x + stride]);
    }
    __syncthreads();
    v = red[0];
    __syncthreads(); /* red is reused by the next reduction */
    return v;
}

template <int DT> static __global__ void __launch_bounds__(SMEM_BLOCK) smx_smem(smx_geo g)
{
    __shared__ float red[SMEM_BLOCK];
    const uint64_t chunk = (g.cols + SMEM_BLOCK - 1) / SMEM_BLOCK;
    const uint64_t lo = threadIdx.x * chunk, hi = lo + chunk < g.cols ? lo + chunk : g.cols;
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld);
        float m = -CUDART_INF_F;
        for (uint64_t i = lo; i < hi; i++)
            m = fmaxf(m, smx_ld<DT>(x, i));
        m = smem_tree<smx_max_op>(m, red);
        smx_kahan s = {0.0f, 0.0f};
        for (uint64_t i = lo; i < hi; i++)
            s.add(expf(smx_ld<DT>(x, i) - m));
        const float inv = 1.0f / smem_tree<smx_sum_op>(s.s, red);
        void *y = smx_row<DT>(g.y, r, g.ld);
        for (uint64_t i = lo; i < hi; i++)
            smx_st<DT>(y, i, expf(smx_ld<DT>(x, i) - m) * inv);
    }
}

template <int DT> static sl_status launch_smem(const sl_args *a)
{
    smx_smem<DT><<<smx_row_grid(a->shape.rows), SMEM_BLOCK, 0, (cudaStream_t)a->stream>>>(smx_geo_of(a));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_softmax_smem(const sl_args *a)
{
    sl_status st = smx_check(a, "smem");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return SMX_DISPATCH(a, launch_smem, a);
}

extern "C" sl_status sl_cuda_softmax_smem_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(SMX_KERNEL_FOR(dt, smx_smem), SMEM_BLOCK, 0, out);
}
