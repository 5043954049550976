/*
 * xent.cuh - what the CUDA cross-entropy kernels share: the launch's
 * geometry, the row's target (int32 or int64) and its state (ignored, out
 * of range), and the per-row epilogue (lse, loss). The dtypes, 16-byte
 * virtual vectors, reductions and the online normaliser are softmax's
 * (softmax.cuh), the packed-vector helpers softmax backward's (sbwd.cuh):
 * included, not copied.
 */
#ifndef SL_OP_XENT_CUH
#define SL_OP_XENT_CUH

#include "sbwd.cuh"
#include "softmax.cuh"
#include "xent.h"

struct xent_geo {
    const void *x;
    void *dx;
    const void *tgt;
    float *loss, *lse;
    const float *gscale;
    uint64_t rows, cols, ld;
    long long ignore;
    float eps;
    int tgt64;
};

static inline xent_geo xent_geo_of(const sl_xent_args *a)
{
    xent_geo g;
    g.x = a->x;
    g.dx = a->dx;
    g.tgt = a->tgt;
    g.loss = a->loss;
    g.lse = a->lse;
    g.gscale = a->gscale;
    g.rows = a->rows;
    g.cols = a->cols;
    g.ld = a->ld;
    g.ignore = a->ignore;
    g.eps = a->smoothing;
    g.tgt64 = a->tgt64;
    return g;
}

/* Row r's target: ign (= ignore_index), bad (out of [0, cols) and not
 * ignored: the row's loss and gradient are NaN, x[r, t] never read). */
struct xent_tgt {
    long long t;
    bool ign, bad;
};

static __device__ __forceinline__ xent_tgt xent_tgt_of(const xent_geo &g, uint64_t r)
{
    xent_tgt x;
    x.t = g.tgt64 ? (long long)((const int64_t *)g.tgt)[r] : (long long)((const int32_t *)g.tgt)[r];
    x.ign = x.t == g.ignore;
    x.bad = !x.ign && (x.t < 0 || (unsigned long long)x.t >= g.cols);
    return x;
}

/* The target's logit (0 for an ignored or bad row: never read). */
template <int DT> static __device__ __forceinline__ float xent_xt(const xent_geo &g, uint64_t r, const xent_tgt &t)
{
    return t.ign || t.bad ? 0.0f : smx_ld<DT>(smx_row<DT>(g.x, r, g.ld), (uint64_t)t.t);
}

/* Write row r's lse and loss from the row's max m, sum s = sum exp(x - m)
 * (m = -inf: s is the sum relative to 0), sum of logits sx and target
 * logit xt. Returns lse. */
static __device__ __forceinline__ float xent_epilogue(const xent_geo &g, uint64_t r, const xent_tgt &t, float m,
                                                       float s, float sx, float xt)
{
    const float lse = (m == -CUDART_INF_F ? 0.0f : m) + logf(s);
    g.lse[r] = lse;
    float l = lse - (1.0f - g.eps) * xt;
    if (g.eps != 0.0f)
        l -= g.eps / (float)g.cols * sx;
    g.loss[r] = t.bad ? CUDART_NAN_F : t.ign ? 0.0f : l;
    return lse;
}

/* The gradient scale: *gscale or 1; 0 for an ignored row, NaN for a bad
 * one. */
static __device__ __forceinline__ float xent_gscale(const xent_geo &g, const xent_tgt &t)
{
    return t.bad ? CUDART_NAN_F : t.ign ? 0.0f : g.gscale ? *g.gscale : 1.0f;
}

/* One gradient element of column c: p = exp(x - m) / s given; one1 =
 * 1 - eps, off = eps / V (hoisted by the caller). */
template <typename IDX>
static __device__ __forceinline__ float xent_grad(const xent_tgt &t, IDX c, IDX tc, float p, float one1, float off,
                                                   float gs)
{
    if (t.ign)
        return 0.0f; /* whatever the logits hold */
    return (p - (c == tc ? one1 : 0.0f) - off) * gs;
}

/* ---- exp for the cross-entropy kernels ------------------------------------------
 * 2^(d log2 e) by ex2.approx.ftz (PTX ISA, "ex2": relative error at most
 * 2^-22; results below 2^-126 flush to 0): two instructions where the
 * accurate expf takes about ten. The first H200 run of the forward
 * (accurate expf in the online sum) ran at 0.42 of the copy's bandwidth,
 * issue-bound, not DRAM-bound. The rounding of d log2 e adds |d| 2^-24
 * relative, as the rounding of d = x - m does: the documented bound has
 * 4 S ulps for the two (src/ops/xent/xent.c, sl_xent_tol_buf). */
static __device__ __forceinline__ float xent_exp(float d)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d * 1.4426950408889634f));
    return r;
}

/* The online normaliser's step (softmax.cuh's smx_ms_add, with xent_exp
 * and a plain running sum): the K elements' max, the state rescaled when
 * it grows, the K terms exp(f - ref) added. */
template <int K> static __device__ __forceinline__ smx_ms xent_ms_add(smx_ms a, const float *f)
{
    float m = a.m;
#pragma unroll
    for (int k = 0; k < K; k++)
        m = fmaxf(m, f[k]);
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    float s = m == a.m ? a.s : a.s * xent_exp(a.m - ref);
    float t = 0.0f;
#pragma unroll
    for (int k = 0; k < K; k++)
        t += xent_exp(f[k] - ref);
    smx_ms r = {m, s + t, 0.0f};
    return r;
}

/* Merge two online states (softmax.cuh's smx_ms_merge with xent_exp). */
static __device__ __forceinline__ smx_ms xent_ms_merge(smx_ms a, smx_ms b)
{
    const float m = fmaxf(a.m, b.m);
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    smx_ms r = {m, a.s * xent_exp(a.m - ref) + b.s * xent_exp(b.m - ref), 0.0f};
    return r;
}

static __device__ __forceinline__ smx_ms xent_ms_warp(smx_ms v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        smx_ms u;
        u.m = __shfl_xor_sync(0xffffffffu, v.m, o);
        u.s = __shfl_xor_sync(0xffffffffu, v.s, o);
        u.c = 0.0f;
        v = xent_ms_merge(v, u);
    }
    return v;
}

/* A 16-byte vector wholly inside the row: loaded and stored without the
 * per-column bounds checks of smx_loadv / smx_storev (the interior of a
 * row; the kernels test once per iteration that all its vectors are). */
template <int DT> static __device__ __forceinline__ void xent_ldfull(const char *p, float *f)
{
    typedef typename sl_dt<DT>::raw R;
    union {
        uint4 u;
        R r[smx_vec<DT>::VE];
    } b;
    b.u = *(const uint4 *)p;
#pragma unroll
    for (int k = 0; k < smx_vec<DT>::VE; k++)
        f[k] = sl_dt<DT>::load(b.r[k]);
}

template <int DT> static __device__ __forceinline__ void xent_stfull(char *p, const float *f)
{
    typedef typename sl_dt<DT>::raw R;
    union {
        uint4 u;
        R r[smx_vec<DT>::VE];
    } b;
#pragma unroll
    for (int k = 0; k < smx_vec<DT>::VE; k++)
        b.r[k] = sl_dt<DT>::store(f[k]);
    *(uint4 *)p = b.u;
}

/* A block's sum or max of v over its blockDim.x threads (a multiple of
 * 32, at most 1024, known at run time): warp butterflies, one value a
 * warp in red, every thread folding them in warp order. red: 32 floats,
 * free on entry and on return. */
template <class OP> static __device__ __forceinline__ float xent_block(float v, float *red)
{
    v = smx_warp<OP>(v);
    const unsigned nw = blockDim.x >> 5;
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = red[0];
    for (unsigned w = 1; w < nw; w++)
        v = OP::apply(v, red[w]);
    __syncthreads();
    return v;
}

#endif /* SL_OP_XENT_CUH */
