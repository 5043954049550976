/*
 * cross-entropy backward from a saved logsumexp (sl_cross_entropy_bwd):
 * for callers that cannot fuse the gradient into the forward (autograd
 * after sl_cross_entropy_fwd). Per row r with target t, smoothing eps,
 * V = cols and row scale g_r (the incoming gradient dy[r], or dy[0] for
 * every row, times *gscale: 1 / the rows not ignored for a mean):
 *   dx[r, j] = (exp(x[r, j] - lse[r]) - (1 - eps) [j = t] - eps / V) g_r
 * One block of 256 threads per row streams it once: 4 16-byte vectors in
 * flight a thread, each element unpacked, exp(x - lse) as
 * ex2.approx(x log2 e - lse log2 e) (one fma with the row's pre-scaled
 * -lse log2 e, then MUFU.EX2), the gradient one more fma p g + (-eps / V
 * g), packed and stored; the target's element is corrected in the one
 * vector that holds it (a compare a vector, not an element). An ignored
 * row is written as zeros without reading it (whatever its logits hold);
 * a target out of range makes the row NaN (x[r, t] is never read: the
 * backward does not need it). Logits and dx at different offsets modulo
 * 16 bytes: the same kernel with single-element accesses. Safe in place
 * (dx = x): each element is read and written by one thread, and nothing
 * else of the row is read.
 *
 * Expectation: the bytes of a copy (read x, write dx) plus 12 bytes a
 * row: ~0.95-1.0 of the copy kernel at DRAM shapes if the ~5 instructions
 * an element (unpack, fma, ex2, fma, pack) stay under the issue rate:
 * 2^31 bf16 elements x 5 / (132 SMs x 128 lanes x 1.98 GHz) = 0.32 ms
 * against 8 GiB / 3.9 TB/s = 2.2 ms of copy (H200).
 */
#include "xent.cuh"

enum { XB_BLOCK = 256, XB_U = 4 };

template <int DT, bool VEC> static __global__ void __launch_bounds__(XB_BLOCK) xent_bwd_rows(xent_geo g, const float *dy,
                                                                                             int dy_per_row)
{
    const int W = VEC ? smx_vec<DT>::VE : 1;
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const xent_tgt t = xent_tgt_of(g, r);
        smx_geo sg;
        sg.x = g.x;
        sg.y = g.dx;
        sg.rows = g.rows;
        sg.cols = g.cols;
        sg.ld = g.ld;
        smx_rowv w;
        if (VEC) {
            w = smx_rowv_of<DT>(sg, r);
        } else {
            w.x0 = (const char *)smx_row<DT>(sg.x, r, sg.ld);
            w.y0 = (char *)smx_row<DT>(sg.y, r, sg.ld);
            w.o = 0;
            w.n = g.cols;
            w.nvv = g.cols;
        }
        if (t.ign) { /* zeros, the logits not read */
            float z[W];
#pragma unroll
            for (int k = 0; k < W; k++)
                z[k] = 0.0f;
            for (uint64_t v = threadIdx.x; v < w.nvv; v += XB_BLOCK) {
                if (VEC)
                    smx_storev<DT>(w, v, z);
                else
                    smx_st<DT>(w.y0, v, 0.0f);
            }
            continue;
        }
        const float gs = t.bad ? CUDART_NAN_F : (dy ? dy[dy_per_row ? r : 0] : 1.0f) * (g.gscale ? *g.gscale : 1.0f);
        const float L2E = 1.4426950408889634f;
        const float nl = -g.lse[r] * L2E;                 /* exp(x - lse) = 2^(x log2 e + nl) */
        const float off = -(g.eps / (float)g.cols) * gs;  /* every element's -eps / V, scaled */
        const float tfix = -(1.0f - g.eps) * gs;          /* the target's -(1 - eps), scaled */
        /* the virtual vector and lane of the target (none for a bad row) */
        const uint64_t tv = t.bad ? ~(uint64_t)0 : ((uint64_t)t.t + w.o) / W;
        const int tk = t.bad ? 0 : (int)(((uint64_t)t.t + w.o) % W);
        /* the vectors wholly inside the row: [vf, vl) */
        const uint64_t vf = w.o ? 1 : 0, vl = ((uint64_t)w.o + w.n) / W;
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)XB_U * XB_BLOCK) {
            float f[XB_U * W];
            if (VEC && v >= vf && v + (uint64_t)(XB_U - 1) * XB_BLOCK < vl) { /* the interior: no checks */
#pragma unroll
                for (int u = 0; u < XB_U; u++)
                    xent_ldfull<DT>(w.x0 + 16 * (v + (uint64_t)u * XB_BLOCK), f + u * W);
#pragma unroll
                for (int u = 0; u < XB_U; u++) {
                    const uint64_t vu = v + (uint64_t)u * XB_BLOCK;
#pragma unroll
                    for (int k = 0; k < W; k++) {
                        float p;
                        asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(p) : "f"(fmaf(f[u * W + k], L2E, nl)));
                        f[u * W + k] = fmaf(p, gs, off);
                    }
                    if (vu == tv) {
#pragma unroll
                        for (int k = 0; k < W; k++)
                            if (k == tk)
                                f[u * W + k] += tfix;
                    }
                    xent_stfull<DT>(w.y0 + 16 * vu, f + u * W);
                }
                continue;
            }
#pragma unroll
            for (int u = 0; u < XB_U; u++) {
                const uint64_t vu = v + (uint64_t)u * XB_BLOCK;
                if (vu < w.nvv) {
                    if (VEC)
                        smx_loadv<DT>(w, vu, f + u * W, 0.0f);
                    else
                        f[u * W] = smx_ld<DT>(w.x0, vu);
                }
            }
#pragma unroll
            for (int u = 0; u < XB_U; u++) {
                const uint64_t vu = v + (uint64_t)u * XB_BLOCK;
                if (vu >= w.nvv)
                    break;
#pragma unroll
                for (int k = 0; k < W; k++) {
                    float p;
                    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(p) : "f"(fmaf(f[u * W + k], L2E, nl)));
                    f[u * W + k] = fmaf(p, gs, off);
                }
                if (vu == tv) {
#pragma unroll
                    for (int k = 0; k < W; k++)
                        if (k == tk)
                            f[u * W + k] += tfix;
                }
                if (VEC)
                    smx_storev<DT>(w, vu, f + u * W);
                else
                    smx_st<DT>(w.y0, vu, f[u * W]);
            }
        }
    }
}

template <bool VEC> struct xb_launch {
    template <int DT> static sl_status run(const sl_xent_args *a)
    {
        xent_bwd_rows<DT, VEC><<<smx_row_grid(a->rows), XB_BLOCK, 0, (cudaStream_t)a->stream>>>(xent_geo_of(a), a->dy,
                                                                                                 a->dy_per_row);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

template <bool VEC> static sl_status xb_go(const sl_xent_args *a)
{
    return a->dtype == SL_F32    ? xb_launch<VEC>::template run<SL_F32>(a)
           : a->dtype == SL_BF16 ? xb_launch<VEC>::template run<SL_BF16>(a)
                                 : xb_launch<VEC>::template run<SL_F16>(a);
}

sl_status sl_cuda_xent_bwd_run(const sl_xent_args *a)
{
    sl_status st = sl_xent_check(a, "cross-entropy backward");
    if (st != SL_OK || a->rows == 0)
        return st;
    if (!a->dx || !a->lse)
        return sl_fail(SL_ERR_INTERNAL, "cross-entropy backward: no dx or lse");
    const bool vec = (((uintptr_t)a->x ^ (uintptr_t)a->dx) & 15u) == 0;
    return vec ? xb_go<true>(a) : xb_go<false>(a);
}

/* The descriptor's rung `split`: the forward kernel (loss, lse: the
 * online rung of xent_fwd), then this backward from the lse it wrote,
 * dy = 1: what a caller that cannot fuse runs, checked against the fused
 * op's reference. */
extern "C" sl_status sl_cuda_xent_split(const sl_args *a)
{
    sl_xent_args x = sl_xent_from(a, 0);
    sl_status st = sl_cuda_xent_twopass_run(&x);
    if (st != SL_OK)
        return st;
    x.dx = a->buf[4];
    return sl_cuda_xent_bwd_run(&x);
}

/* The fused op's public choice (sl_cross_entropy_fwd_bwd and the
 * descriptor's api row): for 16-bit rows of 128 KiB and more and f32 rows
 * over 128 KiB (sl_cuda_row_bulk_ex_pick), rung 5's bulk_ex (05_bulk_ex.cu:
 * 1.23x / 1.27x bulk's speed at 16384 x 131072 / 262144 bf16 on an H200,
 * bench/results/h200-ab-rowex-2026-11-27c.md, and 1.17x / 1.15x at 4096 /
 * 16384 x 65536, bench/results/h200-rowpick-2026-11-27.md; f32 1.13x /
 * 1.16x at 4096 x 65536 / 131072, h200-rowpick-f32-2026-11-27.md); else
 * the bulk rung wherever it fits
 * (16-byte aligned rows of at most 8 x 72 KiB, sm_90; 04_bulk.cu); else
 * the register rung
 * up to 2^15 columns; beyond, in
 * bf16 / f16, the unfused pair (the forward kernel, then the backward from
 * its lse: two streaming reads and a write), which measured 1.32x the
 * two-pass rung's speed at 4096 x 2^17 and 4096 x 2^18 bf16 (H200,
 * docs/ladder.md); f32 keeps the two-pass rung (not measured). */
sl_status sl_cuda_xent_fused_run(const sl_xent_args *a)
{
    /* a bulk rung whose shape fits refuses only without sm_90 code */
    sl_status st = SL_ERR_UNSUPPORTED;
    if (sl_cuda_row_bulk_ex_pick(a->dtype, a->cols) && sl_cuda_xent_bulk_ex_fits(a))
        st = sl_cuda_xent_bulk_ex_run(a);
    if (st == SL_ERR_UNSUPPORTED && sl_cuda_xent_bulk_fits(a))
        st = sl_cuda_xent_bulk_run(a);
    if (st != SL_ERR_UNSUPPORTED)
        return st;
    if (sl_cuda_xent_fused_pick_regs(a))
        return sl_cuda_xent_regs_run(a);
    if (a->dtype == SL_F32 || !a->dx)
        return sl_cuda_xent_twopass_run(a);
    sl_xent_args f = *a;
    f.dx = NULL;
    st = sl_cuda_xent_twopass_run(&f);
    return st != SL_OK ? st : sl_cuda_xent_bwd_run(a);
}

extern "C" sl_status sl_cuda_xent_bwd_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F32    ? (const void *)xent_bwd_rows<SL_F32, true>
                                : dt == SL_BF16 ? (const void *)xent_bwd_rows<SL_BF16, true>
                                                : (const void *)xent_bwd_rows<SL_F16, true>,
                                XB_BLOCK, 0, out);
}
