/*
 * row.cuh - the row-reduction building blocks that the row ops (softmax,
 * the norms, cross-entropy) share, as DESIGN.md asks ("Row ops share one
 * row-reduction skeleton"): the launch's geometry, loading and storing any
 * of f32 / bf16 / f16 in f32, 16-byte "virtual vectors" over a row of any
 * alignment, a compensated sum, the warp- and block-level reductions, the
 * grid of one block per row, and the run-time dtype dispatch over the three
 * row dtypes. Each op adds only its own arithmetic (softmax.cuh: exp and
 * the online (max, sum) combine).
 *
 * Moved out of softmax.cuh (issue 32) unchanged, so the names keep the
 * smx_ prefix they were written with (issue 18); the one change is
 * smx_loadv's overload with a pad value (softmax's keeps -inf).
 */
#ifndef SL_ROW_CUH
#define SL_ROW_CUH

#include "elementwise.cuh"

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

/* Load virtual vector v into f[0..VE); columns outside the row read pad
 * (0 for a plain sum, as in the norms; softmax's -inf below). */
template <int DT>
static __device__ __forceinline__ void smx_loadv(const smx_rowv &w, uint64_t v, float *f, float pad)
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
            f[k] = c >= 0 && (uint64_t)c < w.n ? sl_dt<DT>::load(p[k]) : pad;
        }
    }
}

/* The same, columns outside the row reading -inf: the identity of max,
 * and exp(-inf - m) = 0 adds nothing to a sum (softmax). */
template <int DT> static __device__ __forceinline__ void smx_loadv(const smx_rowv &w, uint64_t v, float *f)
{
    smx_loadv<DT>(w, v, f, -CUDART_INF_F);
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

/* ---- host side -------------------------------------------------------------- */

/* What the register rungs of softmax_bwd and xent share (defined in
 * softmax_bwd/cuda/03_regs.cu): the current device's SM count and whether
 * it runs thread block clusters (compute capability 9.0 on), each cached
 * per device, and a launch of `blocks` blocks of `block` threads in
 * clusters of C (C > 1: sm_90). */
int sl_cuda_row_sms(void);
bool sl_cuda_row_clusters(void);
sl_status sl_cuda_row_launch(const void *fn, uint64_t blocks, int block, unsigned C, void **params, void *stream);
/* The same with smem bytes of dynamic shared memory a block. */
sl_status sl_cuda_row_launch_smem(const void *fn, uint64_t blocks, int block, unsigned C, size_t smem, void **params,
                                  void *stream);
/* Whether the device schedules at least one cluster of C blocks of fn
 * (block threads, smem bytes of dynamic shared memory each; C > 8 first
 * allows fn the non-portable cluster size), by
 * cudaOccupancyMaxActiveClusters, asked once per device (state: the
 * caller's SL_MAX_DEVICES ints, zero at first). Call after fn's shared
 * memory is allowed. */
bool sl_cuda_row_cluster_ok(const void *fn, int block, unsigned C, size_t smem, int *state);
/* What the bulk rungs (softmax_bwd, xent, the norms' forwards) share:
 * let fn use `bytes` of dynamic shared memory (above the default 48 KiB),
 * once per device (ready: SL_MAX_DEVICES flags, the caller's, zero at first);
 * and a row of nv 16-byte vectors cut into the fewest C of 1, 2, 4, 8
 * chunks of at most maxv vectors (cv each, the last fewer): false when 8
 * do not suffice or rows x C blocks pass 2^31 - 1. */
sl_status sl_cuda_row_smem_allow(const void *fn, int bytes, int *ready);
bool sl_cuda_row_chunks(uint64_t nv, uint64_t maxv, uint64_t rows, unsigned *C, uint32_t *cv);
/* A configuration of a row rung that stages chunks of the row in shared
 * memory (softmax's and the cross-entropy's bulk and bulk_ex): BLOCK
 * threads, MINB blocks an SM, KP the chunk the plan prefers (vectors),
 * X1 the one-sided cluster exchange (cluster_x1.cuh) on or off. */
template <int BLOCK, int MINB, int KP, int X1> struct row_bulk_cfg {
    enum { block = BLOCK, minb = MINB, kp = KP, x1 = X1 };
};

/* The public row functions' choice of the one-sided exchange (bulk_ex)
 * over bulk and the register rung, shared by sl_softmax and
 * sl_cross_entropy_fwd_bwd: 16-bit rows of 128 KiB and more, f32 rows over
 * 128 KiB. On an H200, bf16: 1.13-1.27x at 65536-262144 columns
 * (bench/results/h200-rowpick-2026-11-27.md, h200-ab-rowex-2026-11-27c.md);
 * f32: softmax 1.13x / 1.15x bulk's speed at 4096 x 65536 / 131072, 1.18x
 * / 1.04x at 128 x 65536 / 131072, the cross-entropy 1.13x / 1.16x at
 * 4096 x 65536 / 131072 (bench/results/h200-rowpick-f32-2026-11-27.md).
 * f32 rows of exactly 128 KiB keep the register rung: bulk_ex was 0.6-1.4%
 * ahead of it at 4096 x 32768 and 1-6% behind at 128 x 32768 (same file). */
static inline bool sl_cuda_row_bulk_ex_pick(sl_dtype dt, uint64_t cols)
{
    const uint64_t bytes = cols * sl_dtype_size(dt);
    return dt == SL_F32 ? bytes > (128u << 10) : bytes >= (128u << 10);
}

/* Blocks for one block per row, the rows walked grid-stride beyond. */
static inline unsigned smx_row_grid(uint64_t rows)
{
    return rows == 0 ? 1u : rows > 0x7fffffffu ? 0x7fffffffu : (unsigned)rows;
}

/* Run FN<DT>(args...) for the launch's dtype. */
#define SMX_DISPATCH(a, FN, ...)                                                                           \
    ((a)->dtype == SL_F32    ? FN<SL_F32>(__VA_ARGS__)                                                      \
     : (a)->dtype == SL_BF16 ? FN<SL_BF16>(__VA_ARGS__)                                                     \
                             : FN<SL_F16>(__VA_ARGS__))

#define SMX_KERNEL_FOR(dt, K) \
    ((dt) == SL_F32 ? (const void *)K<SL_F32> : (dt) == SL_BF16 ? (const void *)K<SL_BF16> : (const void *)K<SL_F16>)

#endif /* SL_ROW_CUH */
