/*
 * sbwd.cuh - what the CUDA softmax-backward rungs share: the launch's
 * geometry (three row-major matrices y, dy, dx of one shape and leading
 * dimension), 16-byte virtual vectors over three rows at one offset
 * modulo 16 bytes, and the checks. The dtypes, the widening loads, the
 * warp and block reductions and the dtype dispatch are softmax's
 * (softmax.cuh), included, not copied.
 *
 * Numerics, every rung: s = sum_j y_j dy_j in f32 (each product rounded
 * to f32, exact for 16-bit storage), then dx_j = y_j (dy_j - s) in f32,
 * rounded to nearest-even into the storage dtype.
 */
#ifndef SL_OP_SOFTMAX_BWD_CUH
#define SL_OP_SOFTMAX_BWD_CUH

#include "softmax.cuh"
#include "softmax_bwd.h"

/* One launch: rows x cols, row r of each matrix at base + r ld (elements).
 * buf order: y, dy, dx (the descriptor's). */
struct sbwd_geo {
    const void *y, *g;
    void *d;
    uint64_t rows, cols, ld;
};

static inline sbwd_geo sbwd_geo_of(const sl_args *a)
{
    sbwd_geo g;
    g.y = a->buf[0];
    g.g = a->buf[1];
    g.d = a->buf[2];
    g.rows = a->shape.rows;
    g.cols = a->shape.cols;
    g.ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    return g;
}

/* ---- 16-byte virtual vectors over the three rows ---------------------------
 * As softmax.cuh's smx_rowv: a row of n elements starting o elements past
 * a 16-byte boundary is nvv = ceil((o + n) / VE) aligned vectors; y, dy
 * and dx must share o. Outside the row, loads give 0 (y dy = 0 adds
 * nothing to s) and stores write nothing. 32-bit indices (rows of fewer
 * than 2^31 - 8 columns; the launchers send longer rows to rung 1): the
 * first H200 build spilled 72-96 bytes a thread in the 16-bit register
 * kernels with 64-bit ones. */
struct sbwd_rowv {
    const char *y0, *g0;
    char *d0;
    int32_t o, n;
    uint32_t nvv;
};

template <int DT> static __device__ __forceinline__ sbwd_rowv sbwd_rowv_of(const sbwd_geo &g, uint64_t r)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    sbwd_rowv v;
    const uint64_t off = r * g.ld * sizeof(R);
    const char *yr = (const char *)g.y + off;
    const uintptr_t mis = (uintptr_t)yr & 15u;
    v.o = (int32_t)(mis / sizeof(R));
    v.y0 = yr - mis;
    v.g0 = (const char *)g.g + off - mis;
    v.d0 = (char *)g.d + off - mis;
    v.n = (int32_t)g.cols;
    v.nvv = (uint32_t)((v.o + g.cols + VE - 1) / VE);
    return v;
}

/* Vector v of one of the two input rows (base y0 or g0) as raw storage;
 * columns outside the row hold 0. */
template <int DT>
static __device__ __forceinline__ uint4 sbwd_loadraw(const sbwd_rowv &w, const char *base, uint32_t v)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    const int32_t c0 = (int32_t)(v * VE) - w.o;
    if (c0 >= 0 && c0 + VE <= w.n)
        return *(const uint4 *)(base + 16 * (uint64_t)v);
    const R *p = (const R *)(base + 16 * (uint64_t)v);
    uint32_t q[4] = {0u, 0u, 0u, 0u}; /* the zero of every dtype here is all-zero bits */
#pragma unroll
    for (int k = 0; k < VE; k++) {
        const int32_t c = c0 + k;
        const uint32_t e = c >= 0 && c < w.n ? (uint32_t)p[k] : 0u;
        if (sizeof(R) == 4)
            q[k] = e;
        else
            q[k >> 1] |= e << (16 * (k & 1));
    }
    return make_uint4(q[0], q[1], q[2], q[3]);
}

/* Word w of a vector, and element j of a raw vector widened exactly to
 * f32, by register moves and shifts: the first H200 build, through a
 * union of 16-bit elements, put 16-bit vectors in local memory (72-96
 * bytes of spills a thread in the register rung). */
static __device__ __forceinline__ uint32_t sbwd_word(const uint4 &u, int w)
{
    return w == 0 ? u.x : w == 1 ? u.y : w == 2 ? u.z : u.w;
}

template <int DT> static __device__ __forceinline__ float sbwd_el(const uint4 &u, int j)
{
    typedef typename sl_dt<DT>::raw R;
    if (sizeof(R) == 4)
        return sl_dt<DT>::load((R)sbwd_word(u, j));
    const uint32_t w = sbwd_word(u, j >> 1);
    return sl_dt<DT>::load((R)(j & 1 ? w >> 16 : w & 0xffffu));
}

/* VE floats narrowed into a raw vector. */
template <int DT> static __device__ __forceinline__ uint4 sbwd_pack(const float *f)
{
    typedef typename sl_dt<DT>::raw R;
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = sizeof(R) == 4 ? (uint32_t)sl_dt<DT>::store(f[i])
                              : (uint32_t)sl_dt<DT>::store(f[2 * i]) | ((uint32_t)sl_dt<DT>::store(f[2 * i + 1]) << 16);
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* The row's partial sum over one vector pair: sum_j y_j dy_j. */
template <int DT> static __device__ __forceinline__ float sbwd_dot(const uint4 &y, const uint4 &g)
{
    const int VE = smx_vec<DT>::VE;
    float t = 0.0f;
#pragma unroll
    for (int j = 0; j < VE; j++)
        t = fmaf(sbwd_el<DT>(y, j), sbwd_el<DT>(g, j), t);
    return t;
}

/* dx = y (dy - s) for one vector pair, stored into vector v of dx (columns
 * outside the row skipped). */
template <int DT>
static __device__ __forceinline__ void sbwd_store(const sbwd_rowv &w, uint32_t v, const uint4 &y, const uint4 &g,
                                                  float s)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    const int32_t c0 = (int32_t)(v * VE) - w.o;
    float f[VE];
#pragma unroll
    for (int j = 0; j < VE; j++)
        f[j] = sbwd_el<DT>(y, j) * (sbwd_el<DT>(g, j) - s);
    if (c0 >= 0 && c0 + VE <= w.n) {
        *(uint4 *)(w.d0 + 16 * (uint64_t)v) = sbwd_pack<DT>(f);
    } else {
        R *p = (R *)(w.d0 + 16 * (uint64_t)v);
#pragma unroll
        for (int k = 0; k < VE; k++) {
            const int32_t c = c0 + k;
            if (c >= 0 && c < w.n)
                p[k] = sl_dt<DT>::store(f[k]);
        }
    }
}

/* ---- host side ---------------------------------------------------------------- */

static inline sl_status sbwd_check(const sl_args *a, const char *who)
{
    if (!((SL_SOFTMAX_BWD_DTYPES >> a->dtype) & 1u))
        return sl_fail(SL_ERR_UNSUPPORTED, "softmax_bwd %s: offered in f32, f16 and bf16, not %s", who,
                       sl_dtype_name(a->dtype));
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (ld < a->shape.cols)
        return sl_fail(SL_ERR_INVALID_ARG, "softmax_bwd %s: leading dimension %llu below cols %llu", who,
                       (unsigned long long)ld, (unsigned long long)a->shape.cols);
    return SL_OK;
}

/* y, dy and dx at one offset modulo 16 bytes: the 16-byte-vector kernels. */
static inline bool sbwd_aligned(const sl_args *a)
{
    const uintptr_t y = (uintptr_t)a->buf[0];
    return (((y ^ (uintptr_t)a->buf[1]) | (y ^ (uintptr_t)a->buf[2])) & 15u) == 0;
}

/* The row launch helpers (sl_cuda_row_*, defined in 03_regs.cu) are
 * declared in common/row.cuh: the norms' bulk rungs use them too. */

/* 03_regs.cu: whether the launch fits the register rung, and running it. */
struct sbwd_cfg {
    const void *fn;
    int block, tpr;
    unsigned c;
};
bool sl_cuda_softmax_bwd_regs_fits(const sl_args *a, sbwd_cfg *c);
sl_status sl_cuda_softmax_bwd_regs_run(const sl_args *a, const sbwd_cfg *c);

/* The bulk rungs' largest chunk, 16-byte vectors of each input: bulk
 * (04_bulk.cu) 2 x 36 KiB, three blocks an SM; bulk_ex (05_bulk_ex.cu)
 * takes rows beyond 8 such chunks in chunks of up to 2 x 64 KiB, one block
 * an SM (sbwd_bulk.cuh's plan). */
enum { SK_MAXV = 2304, SK_MAXV_EX = 4096 };

/* cuda/api.cu: f32 rows of this many bytes and more take bulk_ex before
 * the register rung (measured ahead from 128 KiB: cuda/api.cu's header). */
enum { SBWD_F32_EX_FROM = 128 * 1024 };

/* 05_bulk_ex.cu: whether y, dy and dx fit the bulk_ex rung (16-byte
 * aligned, rows of whole vectors, at most 8 x 64 KiB of each input a row,
 * sm_90), and running it (a checked, rows and cols > 0; sl_softmax_bwd's
 * pick, api.cu). fits answers for the shape; run also refuses
 * (SL_ERR_UNSUPPORTED) where the device did not load its sm_90 code, and
 * the caller then takes another rung. */
bool sl_cuda_softmax_bwd_bulk_ex_fits(const sl_args *a);
sl_status sl_cuda_softmax_bwd_bulk_ex_run(const sl_args *a);

#endif /* SL_OP_SOFTMAX_BWD_CUH */
