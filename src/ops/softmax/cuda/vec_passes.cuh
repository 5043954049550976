/*
 * vec_passes.cuh - the three-pass, 16-byte-load softmax kernel of rungs 5
 * (U = 1) and 6 (U = 4): a template because the two rungs differ only in
 * how many 16-byte loads a thread issues before it uses the first.
 */
#ifndef SL_SOFTMAX_VEC_PASSES_CUH
#define SL_SOFTMAX_VEC_PASSES_CUH

#include "softmax.cuh"

enum { VECP_BLOCK = 512 };

/* Virtual vectors v, v + BLOCK, ..., v + (U - 1) BLOCK into f (those past
 * the row: -inf). */
template <int DT, int U>
static __device__ __forceinline__ void vecp_load(const smx_rowv &w, uint64_t v, float (*f)[smx_vec<DT>::VE])
{
    const int VE = smx_vec<DT>::VE;
#pragma unroll
    for (int u = 0; u < U; u++) {
        if (v + (uint64_t)u * VECP_BLOCK < w.nvv) {
            smx_loadv<DT>(w, v + (uint64_t)u * VECP_BLOCK, f[u]);
        } else {
#pragma unroll
            for (int k = 0; k < VE; k++)
                f[u][k] = -CUDART_INF_F;
        }
    }
}

template <int U, int DT> static __global__ void __launch_bounds__(VECP_BLOCK) smx_vecp(smx_geo g)
{
    const int VE = smx_vec<DT>::VE;
    __shared__ float red[VECP_BLOCK / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const smx_rowv w = smx_rowv_of<DT>(g, r);
        float f[U][VE];
        float m = -CUDART_INF_F;
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)U * VECP_BLOCK) {
            vecp_load<DT, U>(w, v, f);
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int k = 0; k < VE; k++)
                    m = fmaxf(m, f[u][k]);
        }
        m = smx_block<VECP_BLOCK, smx_max_op>(m, red);
        smx_kahan s = {0.0f, 0.0f};
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)U * VECP_BLOCK) {
            vecp_load<DT, U>(w, v, f);
            float t = 0.0f; /* at most 32 terms: plain; the running sum compensated */
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int k = 0; k < VE; k++)
                    t += expf(f[u][k] - m); /* a masked -inf adds 0 */
            s.add(t);
        }
        const float inv = 1.0f / smx_block<VECP_BLOCK, smx_sum_op>(s.s, red);
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)U * VECP_BLOCK) {
            vecp_load<DT, U>(w, v, f);
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (v + (uint64_t)u * VECP_BLOCK >= w.nvv)
                    break;
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[u][k] = expf(f[u][k] - m) * inv;
                smx_storev<DT>(w, v + (uint64_t)u * VECP_BLOCK, f[u]);
            }
        }
    }
}

template <int U> struct vecp_launch {
    template <int DT> static sl_status run(const sl_args *a)
    {
        smx_vecp<U, DT><<<smx_row_grid(a->shape.rows), VECP_BLOCK, 0, (cudaStream_t)a->stream>>>(smx_geo_of(a));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

/* x and y at different offsets modulo 16 bytes share no 16-byte vector
 * grid: such a launch goes to rung 4 (scalar loads, the same arithmetic). */
static inline bool vecp_aligned(const sl_args *a)
{
    return (((uintptr_t)a->buf[0] ^ (uintptr_t)a->buf[1]) & 15u) == 0;
}

#endif /* SL_SOFTMAX_VEC_PASSES_CUH */
