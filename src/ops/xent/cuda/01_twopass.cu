/*
 * cross-entropy rung 1: two passes, a block of 128 threads per row. Pass 1
 * streams the row once with the online normaliser (Milakov and Gimelshein,
 * arXiv:1805.02867, 2018; softmax.cuh's smx_ms_add), each thread carrying
 * its running (max, sum of exp(x - max)) and its sum of the logits over 4
 * 16-byte virtual vectors in flight (exp by ex2.approx: xent.cuh); the warp and then the block merge the
 * states; thread 0 writes lse = m + log s and the loss (the target's
 * logit read by thread 0 before the block's first barrier). Without a
 * gradient that is the whole kernel: the forward op's read-only rung
 * (`xent_fwd` online), any row length. Pass 2 (fused op) reads the row
 * again and writes dx = (exp(x - m) / s - (1 - eps) [j = t] - eps / V) g.
 * Logits and dx at different offsets modulo 16 bytes: the same kernel
 * with single-element loads. Safe in place (dx = x): the target logit is
 * read before any barrier, and in pass 2 each element is read and written
 * by one thread.
 *
 * Expectation: the forward reads rows x cols x size once: a read-only
 * stream, above the copy's bandwidth per byte (reads alone run at ~4.4
 * TB/s on the H200 against the copy's ~3.9 of mixed traffic) where 128
 * threads x 4 x 16 bytes in flight per row, up to 16 rows an SM, suffice (every row of 2^15
 * and more). The fused form reads the row twice: from L2 when 132 SMs x
 * 2 rows fit in half of it (V <= 2^16 bf16), else 1.5x the copy's bytes
 * from DRAM.
 */
#include "xent.cuh"

/* 128 threads a row: the first two H200 runs had 512, and every thread
 * folded the 16 warps' states after each row (about as many instructions
 * as its share of a 2^15-column row): the forward ran at 0.42-0.51 of
 * the copy at 16384 x 32000, issue-bound. */
enum { XR_BLOCK = 128, XR_U = 4 };

template <int DT, bool VEC, bool GRAD> static __global__ void __launch_bounds__(XR_BLOCK) xent_rows(xent_geo g)
{
    const int W = VEC ? smx_vec<DT>::VE : 1;
    __shared__ float red_m[XR_BLOCK / 32], red_s[XR_BLOCK / 32], red_x[XR_BLOCK / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const xent_tgt t = xent_tgt_of(g, r);
        const float xt = threadIdx.x == 0 ? xent_xt<DT>(g, r, t) : 0.0f;
        smx_geo sg;
        sg.x = g.x;
        sg.y = GRAD ? g.dx : (void *)g.x;
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
        smx_ms st = {-CUDART_INF_F, 0.0f, 0.0f};
        float sx = 0.0f;
        /* the vectors wholly inside the row: [vf, vl) */
        const uint64_t vf = w.o ? 1 : 0, vl = ((uint64_t)w.o + w.n) / W;
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)XR_U * XR_BLOCK) {
            float f[XR_U * W];
            if (VEC && v >= vf && v + (uint64_t)(XR_U - 1) * XR_BLOCK < vl) { /* the interior: no checks */
#pragma unroll
                for (int u = 0; u < XR_U; u++)
                    xent_ldfull<DT>(w.x0 + 16 * (v + (uint64_t)u * XR_BLOCK), f + u * W);
                st = xent_ms_add<XR_U * W>(st, f);
                if (g.eps != 0.0f) {
#pragma unroll
                    for (int k = 0; k < XR_U * W; k++)
                        sx += f[k];
                }
                continue;
            }
#pragma unroll
            for (int u = 0; u < XR_U; u++) {
                const uint64_t vu = v + (uint64_t)u * XR_BLOCK;
                if (vu < w.nvv) {
                    if (VEC)
                        smx_loadv<DT>(w, vu, f + u * W);
                    else
                        f[u * W] = smx_ld<DT>(w.x0, vu);
                } else {
#pragma unroll
                    for (int k = 0; k < W; k++)
                        f[u * W + k] = -CUDART_INF_F;
                }
            }
            st = xent_ms_add<XR_U * W>(st, f);
            if (g.eps != 0.0f) {
#pragma unroll
                for (int u = 0; u < XR_U; u++) {
                    const int64_t c0 = (int64_t)((v + (uint64_t)u * XR_BLOCK) * W) - (int64_t)w.o;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        if (c0 + k >= 0 && (uint64_t)(c0 + k) < w.n)
                            sx += f[u * W + k];
                }
            }
        }
        st = xent_ms_warp(st);
        if ((threadIdx.x & 31) == 0) {
            red_m[threadIdx.x >> 5] = st.m;
            red_s[threadIdx.x >> 5] = st.s - st.c;
        }
        sx = smx_block<XR_BLOCK, smx_sum_op>(sx, red_x); /* its barriers publish red_m, red_s */
        st.m = red_m[0];
        st.s = red_s[0];
        st.c = 0.0f;
#pragma unroll
        for (int k = 1; k < XR_BLOCK / 32; k++) {
            const smx_ms o = {red_m[k], red_s[k], 0.0f};
            st = xent_ms_merge(st, o);
        }
        __syncthreads(); /* red_m, red_s free for the next row */
        if (threadIdx.x == 0)
            xent_epilogue(g, r, t, st.m, st.s, sx, xt);
        if (!GRAD)
            continue;
        const float m = st.m, inv = 1.0f / st.s, gs = xent_gscale(g, t), one1 = 1.0f - g.eps,
                    off = g.eps / (float)g.cols;
        for (uint64_t v = threadIdx.x; v < w.nvv; v += (uint64_t)XR_U * XR_BLOCK) {
            float f[XR_U * W];
#pragma unroll
            for (int u = 0; u < XR_U; u++) {
                const uint64_t vu = v + (uint64_t)u * XR_BLOCK;
                if (vu < w.nvv) {
                    if (VEC)
                        smx_loadv<DT>(w, vu, f + u * W);
                    else
                        f[u * W] = smx_ld<DT>(w.x0, vu);
                }
            }
#pragma unroll
            for (int u = 0; u < XR_U; u++) {
                const uint64_t vu = v + (uint64_t)u * XR_BLOCK;
                if (vu >= w.nvv)
                    break;
                const long long c0 = (long long)(vu * W) - (long long)w.o;
#pragma unroll
                for (int k = 0; k < W; k++)
                    f[u * W + k] = xent_grad<long long>(t, c0 + k, t.t, xent_exp(f[u * W + k] - m) * inv, one1, off, gs);
                if (VEC)
                    smx_storev<DT>(w, vu, f + u * W);
                else
                    smx_st<DT>(w.y0, vu, f[u * W]);
            }
        }
    }
}

template <bool VEC, bool GRAD> struct xr_launch {
    template <int DT> static sl_status run(const sl_xent_args *a)
    {
        xent_rows<DT, VEC, GRAD>
            <<<smx_row_grid(a->rows), XR_BLOCK, 0, (cudaStream_t)a->stream>>>(xent_geo_of(a));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

template <bool VEC, bool GRAD> static sl_status xr_go(const sl_xent_args *a)
{
    return a->dtype == SL_F32    ? xr_launch<VEC, GRAD>::template run<SL_F32>(a)
           : a->dtype == SL_BF16 ? xr_launch<VEC, GRAD>::template run<SL_BF16>(a)
                                 : xr_launch<VEC, GRAD>::template run<SL_F16>(a);
}

sl_status sl_cuda_xent_twopass_run(const sl_xent_args *a)
{
    sl_status st = sl_xent_check(a, "cross-entropy twopass");
    if (st != SL_OK || a->rows == 0)
        return st;
    if (!a->dx)
        return xr_go<true, false>(a);
    const bool vec = (((uintptr_t)a->x ^ (uintptr_t)a->dx) & 15u) == 0;
    return vec ? xr_go<true, true>(a) : xr_go<false, true>(a);
}

extern "C" sl_status sl_cuda_xent_twopass(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cuda_xent_twopass_run(&x);
}

extern "C" sl_status sl_cuda_xent_fwd_online(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 0);
    return sl_cuda_xent_twopass_run(&x);
}

extern "C" sl_status sl_cuda_xent_fwd_api(const sl_args *a)
{
    return sl_cuda_xent_fwd_online(a);
}

extern "C" sl_status sl_cuda_xent_twopass_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(dt == SL_F32    ? (const void *)xent_rows<SL_F32, true, true>
                                : dt == SL_BF16 ? (const void *)xent_rows<SL_BF16, true, true>
                                                : (const void *)xent_rows<SL_F16, true, true>,
                                XR_BLOCK, 0, out);
}

/* ---- mean and sum --------------------------------------------------------------
 * One block: the rows not ignored counted (ws[0] = count, ws[1] =
 * 1 / count), and the row losses summed in fp64, each thread its rows in
 * order then a fixed tree: deterministic. */
enum { XS_BLOCK = 1024 };

static __global__ void __launch_bounds__(XS_BLOCK) xent_count(xent_geo g, float *ws)
{
    __shared__ unsigned long long part[XS_BLOCK];
    unsigned long long c = 0;
    for (uint64_t r = threadIdx.x; r < g.rows; r += XS_BLOCK)
        c += !xent_tgt_of(g, r).ign;
    part[threadIdx.x] = c;
    __syncthreads();
    for (int o = XS_BLOCK / 2; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o)
            part[threadIdx.x] += part[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ws[0] = (float)part[0];
        ws[1] = 1.0f / (float)part[0];
    }
}

static __global__ void __launch_bounds__(XS_BLOCK) xent_sum(const float *rl, uint64_t rows, const float *cnt, int mean,
                                                             float *loss)
{
    __shared__ double part[XS_BLOCK];
    double s = 0.0;
    for (uint64_t r = threadIdx.x; r < rows; r += XS_BLOCK)
        s += (double)rl[r];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int o = XS_BLOCK / 2; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o)
            part[threadIdx.x] += part[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *loss = (float)(mean ? part[0] / (double)cnt[0] : part[0]);
}

sl_status sl_cuda_xent_count(const sl_xent_args *a, float *ws)
{
    xent_count<<<1, XS_BLOCK, 0, (cudaStream_t)a->stream>>>(xent_geo_of(a), ws);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

sl_status sl_cuda_xent_sum(const float *rows_loss, uint64_t rows, const float *cnt, int mean, float *loss,
                           void *stream)
{
    xent_sum<<<1, XS_BLOCK, 0, (cudaStream_t)stream>>>(rows_loss, rows, cnt, mean, loss);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
