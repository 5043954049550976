/*
 * softmax.cuh - what the CUDA softmax rungs share: the launch's geometry,
 * loading and storing any of the op's dtypes in f32, 16-byte "virtual
 * vectors" over a row of any alignment, the reductions (shared-memory
 * tree, warp shuffle, block), the online normaliser's (max, sum) combine,
 * and the run-time dtype dispatch.
 *
 * Numerics, every rung: the row maximum m (fmaxf; the identity is -inf),
 * e_j = expf(x_j - m) (the accurate expf; the register rung uses __expf
 * for 16-bit storage, smx_exp below, and ex2.approx.ftz in its packed
 * kernel for many rows, 08_regs.cu), s = sum e_j in f32 (compensated
 * where a thread adds many terms),
 * y_j = e_j * (1 / s), rounded to nearest-even into the storage dtype.
 * Special values follow from the formula, as in the double reference: a
 * NaN anywhere in a row makes s, and so the whole row, NaN (fmaxf skips
 * the NaN, expf(NaN - m) does not); a row of -inf gives m = -inf and
 * -inf - -inf = NaN (the row is NaN, as in torch.softmax); a +inf makes
 * its row NaN the same way; -inf elements of a finite row give 0.
 */
#ifndef SL_OP_SOFTMAX_CUH
#define SL_OP_SOFTMAX_CUH

#include "elementwise.cuh"
#include "softmax.h"

#include <math_constants.h>

/* One launch's matrix: rows x cols, row r of x at x + r ld (elements). */
struct smx_geo {
    const void *x;
    void *y;
    uint64_t rows, cols, ld;
};

static inline smx_geo smx_geo_of(const sl_args *a)
{
    smx_geo g;
    g.x = a->buf[0];
    g.y = a->buf[1];
    g.rows = a->shape.rows;
    g.cols = a->shape.cols;
    g.ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    return g;
}

/* Element i of a row of storage type DT, widened exactly to f32. */
template <int DT> static __device__ __forceinline__ float smx_ld(const void *row, uint64_t i)
{
    typedef typename sl_dt<DT>::raw R;
    return sl_dt<DT>::load(((const R *)row)[i]);
}

template <int DT> static __device__ __forceinline__ void smx_st(void *row, uint64_t i, float v)
{
    typedef typename sl_dt<DT>::raw R;
    ((R *)row)[i] = sl_dt<DT>::store(v);
}

template <int DT> static __device__ __forceinline__ const void *smx_row(const void *base, uint64_t r, uint64_t ld)
{
    return (const char *)base + r * ld * sizeof(typename sl_dt<DT>::raw);
}

template <int DT> static __device__ __forceinline__ void *smx_row(void *base, uint64_t r, uint64_t ld)
{
    return (char *)base + r * ld * sizeof(typename sl_dt<DT>::raw);
}

/* ---- 16-byte virtual vectors ------------------------------------------------
 * A row of n elements starting o elements past a 16-byte boundary is read
 * as nvv = ceil((o + n) / VE) aligned 16-byte vectors of VE elements
 * (4 f32, 8 bf16 / f16); element k of vector v is column v VE + k - o.
 * Vectors wholly inside the row are one 16-byte load or store; the (at
 * most two) edge vectors go element by element, masked. No access leaves
 * the row. x and y rows must share o: (x ^ y) mod 16 == 0. */
template <int DT> struct smx_vec {
    typedef typename sl_dt<DT>::raw R;
    enum { VE = 16 / sizeof(R) };
};

struct smx_rowv {
    const char *x0; /* the 16-byte boundary at or before the row's first element */
    char *y0;
    uint32_t o;     /* the row's offset in elements from x0 */
    uint64_t n, nvv;
};

template <int DT> static __device__ __forceinline__ smx_rowv smx_rowv_of(const smx_geo &g, uint64_t r)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    smx_rowv v;
    const char *xr = (const char *)smx_row<DT>(g.x, r, g.ld);
    const uintptr_t mis = (uintptr_t)xr & 15u;
    v.o = (uint32_t)(mis / sizeof(R));
    v.x0 = xr - mis;
    v.y0 = (char *)smx_row<DT>(g.y, r, g.ld) - mis;
    v.n = g.cols;
    v.nvv = (v.o + g.cols + VE - 1) / VE;
    return v;
}

/* Load virtual vector v into f[0..VE); columns outside the row read -inf
 * (the identity of max, and exp(-inf - m) = 0 adds nothing to a sum). */
template <int DT>
static __device__ __forceinline__ void smx_loadv(const smx_rowv &w, uint64_t v, float *f)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    const int64_t c0 = (int64_t)(v * VE) - (int64_t)w.o;
    if (c0 >= 0 && (uint64_t)c0 + VE <= w.n) {
        union {
            uint4 u;
            R r[VE];
        } b;
        b.u = *(const uint4 *)(w.x0 + 16 * v);
#pragma unroll
        for (int k = 0; k < VE; k++)
            f[k] = sl_dt<DT>::load(b.r[k]);
    } else {
        const R *p = (const R *)(w.x0 + 16 * v);
#pragma unroll
        for (int k = 0; k < VE; k++) {
            const int64_t c = c0 + k;
            f[k] = c >= 0 && (uint64_t)c < w.n ? sl_dt<DT>::load(p[k]) : -CUDART_INF_F;
        }
    }
}

/* Store f[0..VE) into virtual vector v of y, skipping columns outside. */
template <int DT>
static __device__ __forceinline__ void smx_storev(const smx_rowv &w, uint64_t v, const float *f)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    const int64_t c0 = (int64_t)(v * VE) - (int64_t)w.o;
    if (c0 >= 0 && (uint64_t)c0 + VE <= w.n) {
        union {
            uint4 u;
            R r[VE];
        } b;
#pragma unroll
        for (int k = 0; k < VE; k++)
            b.r[k] = sl_dt<DT>::store(f[k]);
        *(uint4 *)(w.y0 + 16 * v) = b.u;
    } else {
        R *p = (R *)(w.y0 + 16 * v);
#pragma unroll
        for (int k = 0; k < VE; k++) {
            const int64_t c = c0 + k;
            if (c >= 0 && (uint64_t)c < w.n)
                p[k] = sl_dt<DT>::store(f[k]);
        }
    }
}

/* ---- exp for the register rung ------------------------------------------------
 * f32: the accurate expf (2 ulp). 16-bit storage: __expf (ex2.approx of
 * x log2 e: relative error ~2^-22 plus |x| 2^-24 from the product, about
 * 1e-6 for the |x - max| <= 16 of the tests), two instructions instead of
 * about ten. The result is rounded to bf16 (2^-9) or f16 (2^-11), so the
 * difference from expf moves it by at most the one ulp of the dtype that
 * SL_TOL_REL allows for 16-bit outputs (op.h). The first H200 run showed
 * bf16 at DRAM shapes doing no more elements per second than f32: the
 * per-element work, not the bytes, set its time. */
template <int DT> static __device__ __forceinline__ float smx_exp(float x)
{
    return DT == SL_F32 ? expf(x) : __expf(x);
}

/* ---- compensated summation -------------------------------------------------
 * A thread that adds many terms in order (the naive rung's whole row, the
 * block-per-row rungs' N / 512 terms each) loses ~n/2 ulps in a plain f32
 * sum: 16 x 2^-24 held to 2^10 terms in the first H200 run, not to 2^12
 * (naive) or 2^17 / 512 (vec). Kahan's compensated sum keeps the error
 * at ~2 ulps whatever the count (Higham 2002, section 4.3), for 3 more
 * f32 adds per term; nvcc does not reassociate floating-point adds. */
struct smx_kahan {
    float s, c;
    __device__ __forceinline__ void add(float x)
    {
        const float y = x - c, t = s + y;
        c = (t - s) - y;
        s = t;
    }
};

/* ---- reductions ------------------------------------------------------------- */

struct smx_max_op {
    static __device__ __forceinline__ float identity() { return -CUDART_INF_F; }
    static __device__ __forceinline__ float apply(float a, float b) { return fmaxf(a, b); }
};
struct smx_sum_op {
    static __device__ __forceinline__ float identity() { return 0.0f; }
    static __device__ __forceinline__ float apply(float a, float b) { return a + b; }
};

/* Butterfly over the warp (xor shuffles): every lane gets the result. */
template <class OP> static __device__ __forceinline__ float smx_warp(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = OP::apply(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* Over a block of BLOCK threads: warp butterflies, one value per warp in
 * shared memory, then every thread folds the BLOCK / 32 values in the same
 * order (a broadcast read). red: BLOCK / 32 floats of shared memory, free
 * on entry; free again on return. */
template <int BLOCK, class OP> static __device__ __forceinline__ float smx_block(float v, float *red)
{
    v = smx_warp<OP>(v);
    if (BLOCK == 32)
        return v;
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = red[0];
#pragma unroll
    for (int w = 1; w < BLOCK / 32; w++)
        v = OP::apply(v, red[w]);
    __syncthreads(); /* red may be reused at once */
    return v;
}

/* ---- the online normaliser (Milakov and Gimelshein, "Online normalizer
 * calculation for softmax", arXiv:1805.02867, 2018, Algorithm 3) ----------
 * (m, s): the maximum of the elements seen and the sum of exp(x - m) over
 * them. Merging two states rescales the one with the smaller maximum. An
 * empty state, or one of -inf elements only, is (-inf, 0): the reference
 * point ms = 0 stands in for m = -inf so that exp(-inf - -inf) never
 * appears; the formula's NaN for a row of -inf comes in the write pass. */
struct smx_ms {
    float m, s;
    float c; /* the Kahan compensation of s, rescaled with it */
};

static __device__ __forceinline__ smx_ms smx_ms_merge(smx_ms a, smx_ms b)
{
    const float m = fmaxf(a.m, b.m);
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    smx_ms r;
    r.m = m;
    r.s = (a.s - a.c) * expf(a.m - ref) + (b.s - b.c) * expf(b.m - ref);
    r.c = 0.0f;
    return r;
}

/* Add the elements f[0..K) to a state. */
template <int K> static __device__ __forceinline__ smx_ms smx_ms_add(smx_ms a, const float *f)
{
    float m = a.m;
#pragma unroll
    for (int k = 0; k < K; k++)
        m = fmaxf(m, f[k]);
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    smx_kahan acc;
    if (m == a.m) { /* the max held: no rescale, the compensation carries on */
        acc.s = a.s;
        acc.c = a.c;
    } else {
        acc.s = (a.s - a.c) * expf(a.m - ref);
        acc.c = 0.0f;
    }
    float t = 0.0f; /* the K new terms (at most 32): a plain sum */
#pragma unroll
    for (int k = 0; k < K; k++)
        t += expf(f[k] - ref);
    acc.add(t);
    smx_ms r = {m, acc.s, acc.c};
    return r;
}

static __device__ __forceinline__ smx_ms smx_ms_warp(smx_ms v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        smx_ms u;
        u.m = __shfl_xor_sync(0xffffffffu, v.m, o);
        u.s = __shfl_xor_sync(0xffffffffu, v.s, o);
        u.c = __shfl_xor_sync(0xffffffffu, v.c, o);
        v = smx_ms_merge(v, u);
    }
    return v;
}

/* ---- host side -------------------------------------------------------------- */

/* The checks every launcher makes: a dtype of the op, ld >= cols, a grid
 * that fits. */
static inline sl_status smx_check(const sl_args *a, const char *who)
{
    if (!((SL_SOFTMAX_DTYPES >> a->dtype) & 1u))
        return sl_fail(SL_ERR_UNSUPPORTED, "softmax %s: offered in f32, f16 and bf16, not %s", who,
                       sl_dtype_name(a->dtype));
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (ld < a->shape.cols)
        return sl_fail(SL_ERR_INVALID_ARG, "softmax %s: leading dimension %llu below cols %llu", who,
                       (unsigned long long)ld, (unsigned long long)a->shape.cols);
    return SL_OK;
}

/* Blocks for one block per row, the rows walked grid-stride beyond. */
static inline unsigned smx_row_grid(uint64_t rows)
{
    return rows == 0 ? 1u : rows > 0x7fffffffu ? 0x7fffffffu : (unsigned)rows;
}

/* The register rung's configuration for a launch (08_regs.cu): its
 * kernel, block size, threads per row segment, elements per thread and
 * cluster size. */
struct regs_cfg {
    const void *fn;
    int block, tpr, ept;
    unsigned c;
};

/* Whether the launch fits the register rung: x and y at one offset modulo
 * 16 bytes, the row within SL_SOFTMAX_REGS_MAX_COLS slots, the grid within
 * 2^31 - 1 blocks; fills *c. The API runs it with sl_cuda_softmax_regs_run. */
bool sl_cuda_softmax_regs_fits(const sl_args *a, regs_cfg *c);
sl_status sl_cuda_softmax_regs_run(const sl_args *a, const regs_cfg *c);

/* Run FN<DT>(args...) for the launch's dtype. */
#define SMX_DISPATCH(a, FN, ...)                                                                           \
    ((a)->dtype == SL_F32    ? FN<SL_F32>(__VA_ARGS__)                                                      \
     : (a)->dtype == SL_BF16 ? FN<SL_BF16>(__VA_ARGS__)                                                     \
                             : FN<SL_F16>(__VA_ARGS__))

#define SMX_KERNEL_FOR(dt, K) \
    ((dt) == SL_F32 ? (const void *)K<SL_F32> : (dt) == SL_BF16 ? (const void *)K<SL_BF16> : (const void *)K<SL_F16>)

#endif /* SL_OP_SOFTMAX_CUH */
