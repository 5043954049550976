/*
 * softmax backward rung 2: rung 1 with 16-byte virtual vectors
 * (sbwd.cuh: 4 f32 or 8 bf16 / f16 a load, masked head and tail) and
 * U = 4 vectors of y and of dy in flight per thread before the first use.
 * Still two passes over y and dy. y, dy and dx at different offsets
 * modulo 16 bytes go to rung 1 (scalar loads, the same arithmetic).
 *
 * Change from rung 1: 8 x 16 bytes in flight a thread instead of 2 x 4
 * (f32). Expectation: the latency limit lifts; where the second pass hits
 * L2 (rows of up to ~2^14 f32) the DRAM traffic is the useful 3 N x size
 * and the rung should approach the copy; for longer rows the re-read
 * comes from DRAM: 4/3 of the bytes, at best ~0.75 of the copy.
 */
#include "sbwd.cuh"

enum { VB_BLOCK = 512, VB_U = 4 };

template <int DT> static __global__ void __launch_bounds__(VB_BLOCK) sbwd_vec(sbwd_geo g)
{
    __shared__ float red[VB_BLOCK / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const sbwd_rowv w = sbwd_rowv_of<DT>(g, r);
        float s = 0.0f;
        for (uint32_t v = threadIdx.x; v < w.nvv; v += VB_U * VB_BLOCK) {
            uint4 a[VB_U], b[VB_U];
#pragma unroll
            for (int u = 0; u < VB_U; u++) {
                const uint32_t vu = v + u * VB_BLOCK;
                a[u] = vu < w.nvv ? sbwd_loadraw<DT>(w, w.y0, vu) : make_uint4(0, 0, 0, 0);
                b[u] = vu < w.nvv ? sbwd_loadraw<DT>(w, w.g0, vu) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int u = 0; u < VB_U; u++)
                s += sbwd_dot<DT>(a[u], b[u]);
        }
        s = smx_block<VB_BLOCK, smx_sum_op>(s, red);
        for (uint32_t v = threadIdx.x; v < w.nvv; v += VB_U * VB_BLOCK) {
            uint4 a[VB_U], b[VB_U];
#pragma unroll
            for (int u = 0; u < VB_U; u++) {
                const uint32_t vu = v + u * VB_BLOCK;
                if (vu < w.nvv) {
                    a[u] = sbwd_loadraw<DT>(w, w.y0, vu);
                    b[u] = sbwd_loadraw<DT>(w, w.g0, vu);
                }
            }
#pragma unroll
            for (int u = 0; u < VB_U; u++)
                if (v + u * VB_BLOCK < w.nvv)
                    sbwd_store<DT>(w, v + u * VB_BLOCK, a[u], b[u], s);
        }
    }
}

struct vb_launch {
    template <int DT> static sl_status run(const sl_args *a)
    {
        sbwd_vec<DT><<<smx_row_grid(a->shape.rows), VB_BLOCK, 0, (cudaStream_t)a->stream>>>(sbwd_geo_of(a));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_softmax_bwd_vec(const sl_args *a)
{
    sl_status st = sbwd_check(a, "vec");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if (!sbwd_aligned(a) || a->shape.cols > ((uint64_t)1 << 31) - 16)
        return sl_cuda_softmax_bwd_twopass(a); /* scalar loads; 64-bit column indices */
    return SMX_DISPATCH(a, vb_launch::run, a);
}

extern "C" sl_status sl_cuda_softmax_bwd_vec_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(SMX_KERNEL_FOR(dt, sbwd_vec), VB_BLOCK, 0, out);
}
