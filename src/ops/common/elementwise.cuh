/*
 * elementwise.cuh - what every elementwise rung is built from: storage
 * types, the op functors' contract, 16-byte vectors of any storage type,
 * the head/body/tail split, and the dispatch from a run-time dtype to a
 * compiled kernel. Used by the rungs of add, axpy, copy, scale, triad and
 * nstream (src/ops/<op>/cuda/) and by their CUB peers (ew_cub.cuh).
 *
 * An elementwise op computes out[i] = f(in_0[i], ..., in_{NIN-1}[i]). Its
 * functor (src/ops/<op>/<op>.cuh) gives:
 *   enum { NIN = k };                       inputs, 1 to 3
 *   static const unsigned dtypes = MASK;    the op's dtypes (its <op>.h macro, the one list)
 *   static const bool raw_copy = false;     true: out = in_0 bit for bit (copy), no arithmetic
 *   template <class T> __device__ T operator()(const T *x) const;   f in T
 *   static OP from(const sl_args *x);       scalars from the launch
 * The inputs are the op's IN and INOUT buffers in descriptor order and the
 * output its one written buffer (sl_ew_bind), which may be one of them.
 *
 * A rung is a class template R<DT, OP> with two static members:
 *   sl_status launch(const sl_args *x, const OP &op);  enqueue one launch
 *   sl_status attrs(sl_kernel_attrs *out);             its kernel's resources
 * and one extern "C" launcher per op instantiates it for every dtype the op
 * offers (SL_EW_LAUNCHER below). Templates are used for exactly this
 * duplication (dtypes x ops); the kernels themselves stay C-style.
 *
 * Numerics: every element is loaded and widened exactly to the compute
 * type T (fp32 for f32, f16, bf16 and fp8; fp64 for f64), f is evaluated in
 * T as the op writes it (fused multiply-adds explicit: fmaf / fma), and the
 * result is narrowed with round-to-nearest-even on the store; fp8 stores
 * saturate to the largest finite value (cuda_fp8.h, __NV_SATFINITE). The
 * ops' host references (src/ops/<op>/<op>.c, with src/core/dtype_conv.c)
 * compute the same thing in plain C, bit for bit.
 */
#ifndef SL_ELEMENTWISE_CUH
#define SL_ELEMENTWISE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "common.cuh"
#include "ew.h"

/* ---- storage types -------------------------------------------------------
 * sl_dt<DT>::raw is the element's bit pattern as an unsigned integer (so
 * vectors are plain unions); T the compute type; load() widens exactly,
 * store() narrows with round-to-nearest-even, store2() narrows two at once
 * (one cvt for a pair on sm_80+ for 16-bit types, sm_89+ for fp8). */
template <int DT> struct sl_dt;

template <> struct sl_dt<SL_F32> {
    typedef uint32_t raw;
    typedef float T;
    static __device__ __forceinline__ float load(raw r) { return __uint_as_float(r); }
    static __device__ __forceinline__ raw store(float f) { return __float_as_uint(f); }
};

template <> struct sl_dt<SL_F64> {
    typedef unsigned long long raw;
    typedef double T;
    static __device__ __forceinline__ double load(raw r) { return __longlong_as_double((long long)r); }
    static __device__ __forceinline__ raw store(double f) { return (raw)__double_as_longlong(f); }
};

template <> struct sl_dt<SL_F16> {
    typedef uint16_t raw;
    typedef uint32_t raw2;
    typedef float T;
    static __device__ __forceinline__ float load(raw r) { return __half2float(__ushort_as_half(r)); }
    static __device__ __forceinline__ raw store(float f) { return __half_as_ushort(__float2half_rn(f)); }
    static __device__ __forceinline__ raw2 store2(float lo, float hi)
    {
        __half2 h = __floats2half2_rn(lo, hi);
        return *(const uint32_t *)&h;
    }
};

template <> struct sl_dt<SL_BF16> {
    typedef uint16_t raw;
    typedef uint32_t raw2;
    typedef float T;
    static __device__ __forceinline__ float load(raw r) { return __bfloat162float(__ushort_as_bfloat16(r)); }
    static __device__ __forceinline__ raw store(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
    static __device__ __forceinline__ raw2 store2(float lo, float hi)
    {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *(const uint32_t *)&h;
    }
};

template <__nv_fp8_interpretation_t KIND> struct sl_dt_fp8 {
    typedef uint8_t raw;
    typedef uint16_t raw2;
    typedef float T;
    static __device__ __forceinline__ float load(raw r)
    {
        return __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)r, KIND)));
    }
    static __device__ __forceinline__ raw store(float f) { return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, KIND); }
    static __device__ __forceinline__ raw2 store2(float lo, float hi)
    {
        return __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, KIND); /* lo in the low byte */
    }
};
template <> struct sl_dt<SL_FP8_E4M3> : sl_dt_fp8<__NV_E4M3> {};
template <> struct sl_dt<SL_FP8_E5M2> : sl_dt_fp8<__NV_E5M2> {};

/* ---- scalars and fused multiply-adds in the compute type -------------------
 * An op's scalar is kept in both precisions: f32-computing kernels use the
 * scalar rounded to float once on the host (as the reference does), f64
 * kernels the double. */
struct sl_scalar {
    float f;
    double d;
    static sl_scalar of(double v)
    {
        sl_scalar s;
        s.f = (float)v;
        s.d = v;
        return s;
    }
    __device__ __forceinline__ float get(float) const { return f; }
    __device__ __forceinline__ double get(double) const { return d; }
};

static __device__ __forceinline__ float sl_fma(float a, float b, float c)
{
    return fmaf(a, b, c);
}
static __device__ __forceinline__ double sl_fma(double a, double b, double c)
{
    return fma(a, b, c);
}

/* ---- 16-byte vectors ------------------------------------------------------
 * One LDG.128 / STG.128 moves N = 16 / sizeof(element) elements: 2 f64,
 * 4 f32, 8 f16 or bf16, 16 fp8. */
template <int DT> struct sl_vec {
    typedef typename sl_dt<DT>::raw raw;
    enum { N = 16 / sizeof(raw) };
    union {
        uint4 u;
        raw e[N];
        uint32_t w[4];
        uint16_t h[8];
    };
};

/* Element k of an input, widened. */
template <int DT>
static __device__ __forceinline__ typename sl_dt<DT>::T sl_ld(const sl_vec<DT> &v, int k)
{
    return sl_dt<DT>::load(v.e[k]);
}

/* The op on NIN 16-byte vectors, element by element: 16-bit and 8-bit
 * results are narrowed in pairs (one cvt per pair). */
template <int DT, class OP>
static __device__ __forceinline__ uint4 sl_apply16(const OP &op, const uint4 (&in)[OP::NIN])
{
    typedef sl_dt<DT> D;
    typedef typename D::T T;
    if constexpr (OP::raw_copy) {
        return in[0];
    } else {
        sl_vec<DT> v[OP::NIN], out;
#pragma unroll
        for (int j = 0; j < OP::NIN; j++)
            v[j].u = in[j];
        if constexpr (sizeof(typename D::raw) >= 4) {
#pragma unroll
            for (int k = 0; k < sl_vec<DT>::N; k++) {
                T x[OP::NIN];
#pragma unroll
                for (int j = 0; j < OP::NIN; j++)
                    x[j] = sl_ld<DT>(v[j], k);
                out.e[k] = D::store(op(x));
            }
        } else {
#pragma unroll
            for (int k = 0; k < sl_vec<DT>::N / 2; k++) {
                T lo[OP::NIN], hi[OP::NIN];
#pragma unroll
                for (int j = 0; j < OP::NIN; j++) {
                    lo[j] = sl_ld<DT>(v[j], 2 * k);
                    hi[j] = sl_ld<DT>(v[j], 2 * k + 1);
                }
                typename D::raw2 r = D::store2(op(lo), op(hi));
                if constexpr (sizeof(typename D::raw2) == 4)
                    out.w[k] = r;
                else
                    out.h[k] = r;
            }
        }
        return out.u;
    }
}

/* ---- pointers of one launch ---------------------------------------------- */

/* Element pointers for the edges, 16-byte pointers to the body.
 *
 * Aligned layout (every input at the output's address modulo 16 bytes):
 * in16[j] and out16 point at the body's first 16-byte vector, sh[j] = 0.
 *
 * Realigned layout (some input at another address modulo 16): out16 is
 * still 16-byte aligned (the stores stay STG.128), and input j's body
 * vector i is the 16 bytes at sh[j] bytes into the 32 bytes of the aligned
 * vectors in16[j][i], in16[j][i + 1] (sl_funnel16). in16[j] is the body's
 * first byte rounded down to 16. The head is one vector longer and the tail
 * at least one vector long, so that every aligned vector read lies inside
 * the input array (never a byte before it or past its end). */
template <int DT, int NIN> struct sl_ew_ptrs {
    typedef typename sl_dt<DT>::raw raw;
    const raw *in[NIN];
    raw *out;
    const uint4 *in16[NIN];
    uint4 *out16;
    size_t n;        /* elements */
    size_t nvec;     /* 16-byte vectors in the body */
    sl_edges e;
    uint32_t sh[NIN]; /* realigned layout: byte shift of input j (0..15, a multiple of the element size) */
};

/* The 16 bytes at byte sh (0..15) of the 32 bytes lo:hi (lo first, little
 * endian): the realignment of one input vector from two aligned 16-byte
 * loads. sh is uniform across the grid (a kernel parameter), so the word
 * selection is two selects per word (sh / 4 in two binary stages, no
 * indexed registers, no local memory) and the sub-word part one funnel
 * shift per output word (SHF.R.W, PTX shf.r.wrap; CUDA Math API,
 * __funnelshift_r). ES, the element size, bounds sh to its multiples: for
 * 4-byte elements the funnel shifts drop out (sh % 4 = 0), for 8-byte ones
 * the second select stage too (sh is 0 or 8). Up to 16 instructions per 16
 * bytes (1-, 2-byte elements), 10 (4-byte), 6 (8-byte), against an
 * instruction budget of several hundred per 16 bytes at DRAM speed. */
template <int ES>
static __device__ __forceinline__ uint4 sl_funnel16(const uint4 &lo, const uint4 &hi, uint32_t sh)
{
    const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const uint32_t q = sh >> 2, r = (sh & 3u) * 8u;
    uint32_t a[6], b[5];
#pragma unroll
    for (int k = 0; k < 6; k++)
        a[k] = (q & 2u) ? w[k + 2] : w[k];
    if constexpr (ES >= 8) {
        (void)b, (void)r;
        return make_uint4(a[0], a[1], a[2], a[3]);
    } else {
#pragma unroll
        for (int k = 0; k < 5; k++)
            b[k] = (q & 1u) ? a[k + 1] : a[k];
        if constexpr (ES >= 4) {
            (void)r;
            return make_uint4(b[0], b[1], b[2], b[3]);
        } else {
            uint4 o;
            o.x = __funnelshift_r(b[0], b[1], r);
            o.y = __funnelshift_r(b[1], b[2], r);
            o.z = __funnelshift_r(b[2], b[3], r);
            o.w = __funnelshift_r(b[3], b[4], r);
            return o;
        }
    }
}

/* The op on element i. */
template <int DT, class OP>
static __device__ __forceinline__ void sl_apply1(const OP &op, const sl_ew_ptrs<DT, OP::NIN> &p, size_t i)
{
    typedef sl_dt<DT> D;
    if constexpr (OP::raw_copy) {
        p.out[i] = p.in[0][i];
    } else {
        typename D::T x[OP::NIN];
#pragma unroll
        for (int j = 0; j < OP::NIN; j++)
            x[j] = D::load(p.in[j][i]);
        p.out[i] = D::store(op(x));
    }
}

/* Bind the launch's buffers (sl_ew_bind: IN and INOUT in order, then the
 * written one) and split [0, n) into a scalar head that brings the output
 * to a 32-byte sector boundary (or out_align, 128 at most), a body of
 * 16-byte vectors, and a scalar tail. Returns true for the aligned layout
 * (every input at the output's address modulo 16 bytes), false for the
 * realigned one (see sl_ew_ptrs): then the body starts on the first
 * boundary of max(out_align, ra_align, 32) bytes at least 16 bytes into the
 * output (so that every input's aligned-down first vector lies inside the
 * input), and the tail keeps at least one vector (when the body is not
 * empty). head + tail < 127 + 32 bytes' worth of elements aligned with
 * out_align = 128 (158 for fp8), < 143 + 32 realigned with 128 (174), < 47
 * + 32 realigned with 32: under one 256-thread block in every case.
 * Element alignment is the caller's precondition (sl_op_call). */
template <int DT, int NIN>
static inline bool sl_ew_split(const sl_args *x, sl_ew_ptrs<DT, NIN> *p, uint32_t out_align = 16,
                               uint32_t ra_align = 32)
{
    typedef typename sl_dt<DT>::raw raw;
    const size_t es = sizeof(raw), per = 16 / es;
    const void *in[SL_MAX_BUFS];
    void *out = NULL;
    sl_ew_bind(x, in, NIN, &out);
    p->out = (raw *)out;
    p->n = x->n;
    const uintptr_t uo = (uintptr_t)out;
    bool aligned = true;
    for (int j = 0; j < NIN; j++) {
        p->in[j] = (const raw *)in[j];
        aligned = aligned && !(((uintptr_t)in[j] ^ uo) & 15u);
    }
    /* The body's output starts on a 32-byte sector, or on out_align where
     * that is larger (128 puts a tiled rung's tile boundaries on the
     * output's 128-byte lines). A body that starts 16 bytes into a sector
     * makes every warp's 512-byte store touch 17 sectors, two of them
     * partial: issue 17 measured f64 axpy at element offsets (1, 0) and
     * (1, 1), whose bodies started so, writing 3.3% more L2 sectors than
     * at (0, 0) with the same DRAM bytes, and running 1% slower
     * (bench/results/h200-final-2026-11-23.md). A realigned body starts
     * 16 bytes or more into the output, on a ra_align boundary: the bulk
     * rung asks for 128, so that its tiles sit on the output's 128-byte
     * lines (issue 17, fourth round: the same aligned kernel on the same
     * arrays ran 1.2% slower with its tiles 32 bytes off the lines). */
    uint32_t oa = out_align > 32u ? out_align : 32u;
    if (!aligned && ra_align > oa)
        oa = ra_align;
    const uintptr_t am = (uintptr_t)oa - 1u, lead = aligned ? 0u : 16u;
    size_t head = (size_t)(((oa - ((uo + lead) & am)) & am) + lead) / es;
    if (head > x->n)
        head = x->n;
    p->nvec = (x->n - head) / per;
    size_t tail = x->n - head - per * p->nvec;
    if (!aligned && p->nvec > 0 && tail < per) {
        p->nvec--; /* body vector nvec - 1 reads aligned vector nvec: keep it inside */
        tail += per;
    }
    p->e.head = head;
    p->e.tail_start = head + per * p->nvec;
    p->e.tail = tail;
    for (int j = 0; j < NIN; j++) {
        const uintptr_t b = (uintptr_t)(p->in[j] + head);
        p->sh[j] = aligned ? 0u : (uint32_t)(b & 15u);
        p->in16[j] = (const uint4 *)(b & ~(uintptr_t)15u);
    }
    p->out16 = (uint4 *)(p->out + head);
    return aligned;
}

/* Threads 0 .. head + tail - 1 of the grid each do one edge element, in
 * parallel, inside the main kernel (the seed did its tail serially on
 * thread 0). At most 47 + 31 elements (fp8, realigned; 31 + 15 aligned)
 * with the default alignments: every launcher's grid has at least one
 * block of 128 or more threads; with 128 (bulk, 256 threads a block), at
 * most 143 + 31 (sl_ew_split). */
template <int DT, class OP>
static __device__ __forceinline__ void sl_ew_edges(const OP &op, const sl_ew_ptrs<DT, OP::NIN> &p)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < p.e.head)
        sl_apply1<DT>(op, p, t);
    else if (t - p.e.head < p.e.tail)
        sl_apply1<DT>(op, p, p.e.tail_start + (t - p.e.head));
}

/* Load the NIN 16-byte vectors of body vector i. RA (the realigned
 * layout): an input with a shift takes two aligned LDG.128 (the second is
 * the neighbour thread's first, so L1 and L2 see each sector once per warp
 * as in the aligned case) and one sl_funnel16. */
template <int DT, class OP, bool RA = false>
static __device__ __forceinline__ void sl_ld16(const sl_ew_ptrs<DT, OP::NIN> &p, size_t i, uint4 (&v)[OP::NIN])
{
#pragma unroll
    for (int j = 0; j < OP::NIN; j++) {
        if (RA && p.sh[j])
            v[j] = sl_funnel16<sizeof(typename sl_dt<DT>::raw)>(p.in16[j][i], p.in16[j][i + 1], p.sh[j]);
        else
            v[j] = p.in16[j][i];
    }
}

/* ---- the scalar kernel -------------------------------------------------------
 * Before issue 17 every rung fell back to it when the arrays' addresses
 * differed modulo 16 bytes (bf16 lost 9-10% to CUB that way); now only the
 * explore-only bulk pipeline does (sl_ew_prologue_aligned). Each block owns 256 x 4
 * consecutive elements; thread t loads t, t + 256, t + 512, t + 768 of each
 * input before the first store. Every warp access is a full line of
 * 32 x sizeof(element) bytes, so DRAM traffic equals the vector rungs';
 * the price is more load and store instructions. */
enum { SL_SCALAR_BLOCK = 256, SL_SCALAR_ILP = 4 };

template <int DT, class OP>
static __global__ void __launch_bounds__(SL_SCALAR_BLOCK) ew_scalar_ilp(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
    typedef sl_dt<DT> D;
    const size_t base = (size_t)blockIdx.x * (SL_SCALAR_BLOCK * SL_SCALAR_ILP) + threadIdx.x;
    if (base + (SL_SCALAR_ILP - 1) * SL_SCALAR_BLOCK < p.n) {
        typename D::raw r[SL_SCALAR_ILP][OP::NIN];
#pragma unroll
        for (int k = 0; k < SL_SCALAR_ILP; k++)
#pragma unroll
            for (int j = 0; j < OP::NIN; j++)
                r[k][j] = p.in[j][base + k * SL_SCALAR_BLOCK];
#pragma unroll
        for (int k = 0; k < SL_SCALAR_ILP; k++) {
            if constexpr (OP::raw_copy) {
                p.out[base + k * SL_SCALAR_BLOCK] = r[k][0];
            } else {
                typename D::T x[OP::NIN];
#pragma unroll
                for (int j = 0; j < OP::NIN; j++)
                    x[j] = D::load(r[k][j]);
                p.out[base + k * SL_SCALAR_BLOCK] = D::store(op(x));
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < SL_SCALAR_ILP; k++) {
            size_t i = base + k * SL_SCALAR_BLOCK;
            if (i < p.n)
                sl_apply1<DT>(op, p, i);
        }
    }
}

template <int DT, class OP> struct rung_scalar_ilp {
    static sl_status launch_ptrs(const sl_ew_ptrs<DT, OP::NIN> &p, const OP &op, void *stream)
    {
        if (p.n == 0)
            return SL_OK;
        unsigned grid = 0;
        sl_status st = sl_grid_for(p.n, SL_SCALAR_BLOCK * SL_SCALAR_ILP, "scalar_ilp", &grid);
        if (st != SL_OK)
            return st;
        ew_scalar_ilp<DT, OP><<<grid, SL_SCALAR_BLOCK, 0, (cudaStream_t)stream>>>(op, p);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status launch(const sl_args *x, const OP &op)
    {
        sl_ew_ptrs<DT, OP::NIN> p;
        sl_ew_split<DT>(x, &p);
        return launch_ptrs(p, op, x->stream);
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_scalar_ilp<DT, OP>, SL_SCALAR_BLOCK, 0, out);
    }
};

/* The start of every vectorized launcher: nothing to do for n = 0 (returns
 * false, *st = SL_OK); otherwise *p holds the split and *ra says whether
 * it is the realigned layout (the caller launches its RA = true kernel). */
template <int DT, class OP>
static inline bool sl_ew_prologue(const sl_args *x, const OP &op, sl_ew_ptrs<DT, OP::NIN> *p, bool *ra,
                                  sl_status *st, uint32_t out_align = 16, uint32_t ra_align = 32)
{
    (void)op;
    *st = SL_OK;
    if (x->n == 0)
        return false;
    *ra = !sl_ew_split<DT>(x, p, out_align, ra_align);
    return true;
}

/* The same for a kernel without a realigned form (the bulk pipeline of
 * bench/experiments/explore_kernels.cu): misaligned arrays take the scalar kernel. */
template <int DT, class OP>
static inline bool sl_ew_prologue_aligned(const sl_args *x, const OP &op, sl_ew_ptrs<DT, OP::NIN> *p, sl_status *st)
{
    bool ra = false;
    if (!sl_ew_prologue<DT>(x, op, p, &ra, st))
        return false;
    if (ra) {
        *st = rung_scalar_ilp<DT, OP>::launch_ptrs(*p, op, x->stream);
        return false;
    }
    return true;
}

/* ---- dispatch ------------------------------------------------------------- */

/* Call f(R<DT, OP>()) for the run-time dtype dt, instantiating only the
 * dtypes the op offers (OP::dtypes), or none() for any other dtype. The
 * rung types are empty: f reaches their static members through decltype. */
template <template <int, class> class R, class OP, class F, class G>
static sl_status sl_ew_on_dtype(sl_dtype dt, F f, G none)
{
#define SL_EW_CASE(D)                                 \
    case D:                                           \
        if constexpr ((OP::dtypes >> D) & 1u)         \
            return f(R<D, OP>());                     \
        break;
    switch (dt) {
        SL_EW_CASE(SL_F32)
        SL_EW_CASE(SL_F64)
        SL_EW_CASE(SL_F16)
        SL_EW_CASE(SL_BF16)
        SL_EW_CASE(SL_FP8_E4M3)
        SL_EW_CASE(SL_FP8_E5M2)
    default: break;
    }
#undef SL_EW_CASE
    return none();
}

static inline sl_status sl_ew_no_dtype(const sl_args *x)
{
    return sl_fail(SL_ERR_UNSUPPORTED, "%s is not offered in %s", x->op ? x->op->name : "this op",
                   sl_dtype_name(x->dtype));
}

/* Run R<dtype, OP> for the run-time dtype in x. */
template <template <int, class> class R, class OP>
static sl_status sl_ew_run(const sl_args *x)
{
    const OP op = OP::from(x);
    return sl_ew_on_dtype<R, OP>(
        x->dtype, [&](auto r) { return decltype(r)::launch(x, op); }, [&] { return sl_ew_no_dtype(x); });
}

template <template <int, class> class R, class OP>
static sl_status sl_ew_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_ew_on_dtype<R, OP>(
        dt, [&](auto r) { return decltype(r)::attrs(out); },
        [&] { return sl_fail(SL_ERR_UNSUPPORTED, "no kernel for dtype %s", sl_dtype_name(dt)); });
}

/* One launcher and its attrs function: NAME(x) and NAME_attrs(dt, out),
 * declared in the op's header with SL_DECLARE_LAUNCHER (ew.h). */
#define SL_EW_LAUNCHER(NAME, RUNG, OP)                                                              \
    extern "C" sl_status NAME(const sl_args *x) { return sl_ew_run<RUNG, OP>(x); }                  \
    extern "C" sl_status NAME##_attrs(sl_dtype dt, sl_kernel_attrs *out) { return sl_ew_attrs<RUNG, OP>(dt, out); }

#endif /* SL_ELEMENTWISE_CUH */
