/*
 * softmax rung 7: the online normaliser (seed 002, "Online Normalization";
 * Milakov and Gimelshein, arXiv:1805.02867, 2018). One read pass carries
 * each thread's running (max, sum of exp(x - max)), rescaling the sum when
 * the max grows; the warp merges its 32 states in a shuffle butterfly (max
 * and sum exchanged together, the smaller side rescaled), the block its
 * warps' states; then the write pass reads x again. 16-byte loads, 4 in
 * flight per thread, as rung 6. Fixed from the seed: the rescale uses the
 * accurate expf (the seed's __expf has a relative error growing with
 * |x|), and a state of -inf elements only is (-inf, 0), not NaN
 * (softmax.cuh, smx_ms_merge), so masked tails and -inf columns are safe;
 * the running sum is compensated (Kahan), as the first H200 run showed
 * a 2^18-column row drifting 32 ulps without it.
 *
 * Change from rung 6: two passes over x instead of three (2 reads + 1
 * write of the row), one block reduction instead of two. Expectation: for
 * rows that spill L2, 3 N x size bytes of DRAM traffic instead of 4: ~4/3
 * faster where DRAM-bound; at M = 128 still one block per row (128 of 132
 * SMs), so the same per-SM latency limit as rung 6 and about 2/3 of its
 * time. x and y at different offsets modulo 16 go through the same kernel
 * with scalar loads (VEC = false), which the public API uses for them.
 */
#include "softmax.cuh"

enum { ONL_BLOCK = 512, ONL_U = 4 };

/* VEC: 16-byte virtual vectors of the row; otherwise single elements. */
template <int DT, bool VEC> struct onl_io {
    enum { W = VEC ? smx_vec<DT>::VE : 1 };
    static __device__ __forceinline__ smx_rowv row(const smx_geo &g, uint64_t r)
    {
        if (VEC)
            return smx_rowv_of<DT>(g, r);
        smx_rowv w;
        w.x0 = (const char *)smx_row<DT>(g.x, r, g.ld);
        w.y0 = (char *)smx_row<DT>(g.y, r, g.ld);
        w.o = 0;
        w.n = g.cols;
        w.nvv = g.cols;
        return w;
    }
    static __device__ __forceinline__ void load(const smx_rowv &w, uint64_t v, float *f)
    {
        if (VEC)
            smx_loadv<DT>(w, v, f);
        else
            f[0] = v < w.n ? smx_ld<DT>(w.x0, v) : -CUDART_INF_F;
    }
    static __device__ __forceinline__ void store(const smx_rowv &w, uint64_t v, const float *f)
    {
        if (VEC)
            smx_storev<DT>(w, v, f);
        else
            smx_st<DT>(w.y0, v, f[0]);
    }
};

template <bool VEC, int DT> static __global__ void __launch_bounds__(ONL_BLOCK) smx_online(smx_geo g)
{
    typedef onl_io<DT, VEC> IO;
    const int W = IO::W;
    __shared__ float red_m[ONL_BLOCK / 32], red_s[ONL_BLOCK / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const smx_rowv w = IO::row(g, r);
        smx_ms st = {-CUDART_INF_F, 0.0f, 0.0f};
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)ONL_U * ONL_BLOCK) {
            float f[ONL_U * W];
#pragma unroll
            for (int u = 0; u < ONL_U; u++) {
                if (v + (uint64_t)u * ONL_BLOCK < w.nvv) {
                    IO::load(w, v + (uint64_t)u * ONL_BLOCK, f + u * W);
                } else {
#pragma unroll
                    for (int k = 0; k < W; k++)
                        f[u * W + k] = -CUDART_INF_F;
                }
            }
            st = smx_ms_add<ONL_U * W>(st, f);
        }
        st = smx_ms_warp(st);
        if ((threadIdx.x & 31) == 0) {
            red_m[threadIdx.x >> 5] = st.m;
            red_s[threadIdx.x >> 5] = st.s - st.c;
        }
        __syncthreads();
        st.m = red_m[0];
        st.s = red_s[0];
        st.c = 0.0f;
#pragma unroll
        for (int k = 1; k < ONL_BLOCK / 32; k++) {
            smx_ms o = {red_m[k], red_s[k], 0.0f};
            st = smx_ms_merge(st, o);
        }
        __syncthreads();
        /* The write pass against the row's max: a row of -inf has m = -inf
         * and gives NaN here, as the formula does. */
        const float m = st.m, inv = 1.0f / st.s;
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)ONL_U * ONL_BLOCK) {
            float f[ONL_U * W];
#pragma unroll
            for (int u = 0; u < ONL_U; u++)
                if (v + (uint64_t)u * ONL_BLOCK < w.nvv)
                    IO::load(w, v + (uint64_t)u * ONL_BLOCK, f + u * W);
#pragma unroll
            for (int u = 0; u < ONL_U; u++) {
                if (v + (uint64_t)u * ONL_BLOCK >= w.nvv)
                    break;
#pragma unroll
                for (int k = 0; k < W; k++)
                    f[u * W + k] = expf(f[u * W + k] - m) * inv;
                IO::store(w, v + (uint64_t)u * ONL_BLOCK, f + u * W);
            }
        }
    }
}

template <bool VEC> struct onl_launch {
    template <int DT> static sl_status run(const sl_args *a)
    {
        smx_online<VEC, DT><<<smx_row_grid(a->shape.rows), ONL_BLOCK, 0, (cudaStream_t)a->stream>>>(smx_geo_of(a));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_softmax_online(const sl_args *a)
{
    sl_status st = smx_check(a, "online");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if ((((uintptr_t)a->buf[0] ^ (uintptr_t)a->buf[1]) & 15u) == 0)
        return SMX_DISPATCH(a, onl_launch<true>::run, a);
    return SMX_DISPATCH(a, onl_launch<false>::run, a);
}

extern "C" sl_status sl_cuda_softmax_online_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F32    ? (const void *)smx_online<true, SL_F32>
                                : dt == SL_BF16 ? (const void *)smx_online<true, SL_BF16>
                                                : (const void *)smx_online<true, SL_F16>,
                                ONL_BLOCK, 0, out);
}
