/*
 * elementwise.cuh - what every elementwise rung is built from: storage
 * types, the ops, 16-byte vectors of any storage type, the head/body/tail
 * split, and the dispatch from a run-time (dtype, op) to a compiled kernel.
 *
 * A rung is a class template R<DT, OP> with two static members:
 *   sl_status launch(const sl_args *x, const OP &op);  enqueue one launch
 *   sl_status attrs(sl_kernel_attrs *out);             its kernel's resources
 * and one extern "C" launcher per registry entry instantiates it for one op
 * and every dtype the op supports (SL_EW_LAUNCHER below). Templates are used
 * for exactly this duplication (dtypes x ops); the kernels themselves stay
 * C-style.
 *
 * Numerics (issue 6): every element is loaded, widened exactly to fp32,
 * combined in fp32 (add: a + b; axpy: one fmaf(alpha, x, y)), and narrowed
 * with round-to-nearest-even on the store; fp8 stores saturate to the
 * largest finite value (cuda_fp8.h, __NV_SATFINITE). The host reference
 * (src/cpu/ref.c with src/core/dtype_conv.c) does the same, bit for bit.
 */
#ifndef SL_ELEMENTWISE_CUH
#define SL_ELEMENTWISE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "common.cuh"

/* ---- storage types -------------------------------------------------------
 * sl_dt<DT>::raw is the element's bit pattern as an unsigned integer (so
 * vectors are plain unions); load() widens it exactly to fp32, store()
 * narrows fp32 with round-to-nearest-even, store2() narrows two at once
 * (one cvt for a pair on sm_80+ for 16-bit types, sm_89+ for fp8). */
template <int DT> struct sl_dt;

template <> struct sl_dt<SL_F32> {
    typedef uint32_t raw;
    typedef uint64_t raw2;
    static __device__ __forceinline__ float load(raw r) { return __uint_as_float(r); }
    static __device__ __forceinline__ raw store(float f) { return __float_as_uint(f); }
    static __device__ __forceinline__ raw2 store2(float lo, float hi)
    {
        return (uint64_t)store(lo) | ((uint64_t)store(hi) << 32);
    }
};

template <> struct sl_dt<SL_F16> {
    typedef uint16_t raw;
    typedef uint32_t raw2;
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

/* ---- the ops ---------------------------------------------------------------
 * out = op(in0, in1) in fp32. For add, (in0, in1, out) = (a, b, c); for
 * axpy, (x, y, y). fp8_ok: whether the op is offered in fp8 (issue 6 asks
 * for axpy in f32, f16 and bf16 only). */
struct sl_op_add {
    static const bool fp8_ok = true;
    static sl_op_add from(const sl_args *) { return sl_op_add(); }
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

struct sl_op_axpy {
    static const bool fp8_ok = false;
    float alpha;
    static sl_op_axpy from(const sl_args *x)
    {
        sl_op_axpy o;
        o.alpha = x->alpha;
        return o;
    }
    __device__ __forceinline__ float operator()(float x, float y) const { return fmaf(alpha, x, y); }
};

/* ---- 16-byte vectors ------------------------------------------------------
 * One LDG.128 / STG.128 moves N = 16 / sizeof(element) elements: 4 f32,
 * 8 f16 or bf16, 16 fp8. */
template <int DT> struct sl_vec {
    typedef typename sl_dt<DT>::raw raw;
    typedef typename sl_dt<DT>::raw2 raw2;
    enum { N = 16 / sizeof(raw) };
    union {
        uint4 u;
        raw e[N];
        raw2 p[N / 2];
    };
};

/* The op on two 16-byte vectors, element by element, narrowing in pairs. */
template <int DT, class OP>
static __device__ __forceinline__ uint4 sl_apply16(const OP &op, uint4 a, uint4 b)
{
    typedef sl_dt<DT> T;
    sl_vec<DT> va, vb, vc;
    va.u = a;
    vb.u = b;
#pragma unroll
    for (int k = 0; k < sl_vec<DT>::N / 2; k++)
        vc.p[k] = T::store2(op(T::load(va.e[2 * k]), T::load(vb.e[2 * k])),
                            op(T::load(va.e[2 * k + 1]), T::load(vb.e[2 * k + 1])));
    return vc.u;
}

/* The op on one element i of raw arrays. */
template <int DT, class OP>
static __device__ __forceinline__ void sl_apply1(const OP &op, const typename sl_dt<DT>::raw *a,
                                                 const typename sl_dt<DT>::raw *b, typename sl_dt<DT>::raw *c,
                                                 size_t i)
{
    typedef sl_dt<DT> T;
    c[i] = T::store(op(T::load(a[i]), T::load(b[i])));
}

/* ---- head / 16-byte body / tail ------------------------------------------- */

/* The pointers of one vectorized launch: element pointers for the edges,
 * 16-byte pointers to the aligned body. */
template <int DT> struct sl_ew_ptrs {
    typedef typename sl_dt<DT>::raw raw;
    const raw *a, *b;
    raw *c;
    const uint4 *a16, *b16;
    uint4 *c16;
    size_t nvec;     /* 16-byte vectors in the body */
    sl_edges e;
};

/* Split [0, n) into a scalar head that brings c to a 16-byte boundary, a
 * body of 16-byte vectors aligned in a, b and c, and a scalar tail. Returns
 * false when the pointers differ modulo 16 bytes (no one shift aligns them
 * all): the caller then takes the scalar path. Element alignment is the
 * caller's precondition (sl_check_binary_args). */
template <int DT>
static inline bool sl_ew_split(const sl_args *x, sl_ew_ptrs<DT> *p)
{
    typedef typename sl_dt<DT>::raw raw;
    const size_t es = sizeof(raw), per = 16 / es;
    uintptr_t ua = (uintptr_t)x->a, ub = (uintptr_t)x->b, uc = (uintptr_t)x->c;
    if (((ua ^ uc) & 15u) || ((ub ^ uc) & 15u))
        return false;
    size_t head = ((16u - (uc & 15u)) & 15u) / es;
    if (head > x->n)
        head = x->n;
    p->a = (const raw *)x->a;
    p->b = (const raw *)x->b;
    p->c = (raw *)x->c;
    p->nvec = (x->n - head) / per;
    p->e.head = head;
    p->e.tail_start = head + per * p->nvec;
    p->e.tail = x->n - p->e.tail_start;
    p->a16 = (const uint4 *)(p->a + head);
    p->b16 = (const uint4 *)(p->b + head);
    p->c16 = (uint4 *)(p->c + head);
    return true;
}

/* Threads 0 .. head + tail - 1 of the grid each do one edge element, in
 * parallel, inside the main kernel (the seed did its tail serially on
 * thread 0). At most 2 x 15 elements (fp8). */
template <int DT, class OP>
static __device__ __forceinline__ void sl_ew_edges(const OP &op, const sl_ew_ptrs<DT> &p)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < p.e.head)
        sl_apply1<DT>(op, p.a, p.b, p.c, t);
    else if (t - p.e.head < p.e.tail)
        sl_apply1<DT>(op, p.a, p.b, p.c, p.e.tail_start + (t - p.e.head));
}

/* The scalar fallback of every vectorized rung and of the public API, for
 * pointers that differ modulo 16 bytes. Each block owns 256 x 4
 * consecutive elements; thread t loads t, t + 256, t + 512, t + 768 of each
 * input before the first store. Every warp access is a full line of
 * 32 x sizeof(element) bytes, so DRAM traffic equals the vector rungs';
 * the price is more load and store instructions. */
enum { SL_SCALAR_BLOCK = 256, SL_SCALAR_ILP = 4 };

template <int DT, class OP>
static __global__ void __launch_bounds__(SL_SCALAR_BLOCK)
ew_scalar_ilp(OP op, const typename sl_dt<DT>::raw *a, const typename sl_dt<DT>::raw *b,
              typename sl_dt<DT>::raw *c, size_t n)
{
    typedef sl_dt<DT> T;
    const size_t base = (size_t)blockIdx.x * (SL_SCALAR_BLOCK * SL_SCALAR_ILP) + threadIdx.x;
    if (base + (SL_SCALAR_ILP - 1) * SL_SCALAR_BLOCK < n) {
        float ra[SL_SCALAR_ILP], rb[SL_SCALAR_ILP];
#pragma unroll
        for (int k = 0; k < SL_SCALAR_ILP; k++) {
            ra[k] = T::load(a[base + k * SL_SCALAR_BLOCK]);
            rb[k] = T::load(b[base + k * SL_SCALAR_BLOCK]);
        }
#pragma unroll
        for (int k = 0; k < SL_SCALAR_ILP; k++)
            c[base + k * SL_SCALAR_BLOCK] = T::store(op(ra[k], rb[k]));
    } else {
#pragma unroll
        for (int k = 0; k < SL_SCALAR_ILP; k++) {
            size_t i = base + k * SL_SCALAR_BLOCK;
            if (i < n)
                sl_apply1<DT>(op, a, b, c, i);
        }
    }
}

template <int DT, class OP> struct rung_scalar_ilp {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        typedef typename sl_dt<DT>::raw raw;
        if (x->n == 0)
            return SL_OK;
        unsigned grid = 0;
        sl_status st = sl_grid_for(x->n, SL_SCALAR_BLOCK * SL_SCALAR_ILP, "scalar_ilp", &grid);
        if (st != SL_OK)
            return st;
        ew_scalar_ilp<DT, OP><<<grid, SL_SCALAR_BLOCK, 0, (cudaStream_t)x->stream>>>(
            op, (const raw *)x->a, (const raw *)x->b, (raw *)x->c, x->n);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
    static sl_status attrs(sl_kernel_attrs *out)
    {
        return sl_cuda_kernel_attrs((const void *)ew_scalar_ilp<DT, OP>, SL_SCALAR_BLOCK, 0, out);
    }
};

/* The start of every vectorized launcher: nothing to do for n = 0, the
 * scalar kernel when the pointers cannot share one 16-byte alignment.
 * Returns true when the caller should launch its vector kernel on *p,
 * false when *st holds the launcher's answer. */
template <int DT, class OP>
static inline bool sl_ew_prologue(const sl_args *x, const OP &op, sl_ew_ptrs<DT> *p, sl_status *st)
{
    *st = SL_OK;
    if (x->n == 0)
        return false;
    if (!sl_ew_split<DT>(x, p)) {
        *st = rung_scalar_ilp<DT, OP>::launch(x, op);
        return false;
    }
    return true;
}

/* ---- dispatch ------------------------------------------------------------- */

static inline sl_status sl_ew_no_dtype(const sl_args *x)
{
    return sl_fail(SL_ERR_UNSUPPORTED, "%s is not offered in %s", x->op == SL_OP_AXPY ? "axpy" : "this op",
                   sl_dtype_name(x->dtype));
}

/* Call f(R<DT, OP>()) for the run-time dtype dt, instantiating only the
 * dtypes the op offers, or none() for any other dtype. The rung types are
 * empty: f reaches their static members through decltype. */
template <template <int, class> class R, class OP, class F, class G>
static sl_status sl_ew_on_dtype(sl_dtype dt, F f, G none)
{
    switch (dt) {
    case SL_F32: return f(R<SL_F32, OP>());
    case SL_F16: return f(R<SL_F16, OP>());
    case SL_BF16: return f(R<SL_BF16, OP>());
    case SL_FP8_E4M3:
        if constexpr (OP::fp8_ok)
            return f(R<SL_FP8_E4M3, OP>());
        break;
    case SL_FP8_E5M2:
        if constexpr (OP::fp8_ok)
            return f(R<SL_FP8_E5M2, OP>());
        break;
    default: break;
    }
    return none();
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

/* One registry launcher and its attrs function: NAME(x) and NAME_attrs(dt, out). */
#define SL_EW_LAUNCHER(NAME, RUNG, OP)                                                              \
    extern "C" sl_status NAME(const sl_args *x) { return sl_ew_run<RUNG, OP>(x); }                  \
    extern "C" sl_status NAME##_attrs(sl_dtype dt, sl_kernel_attrs *out) { return sl_ew_attrs<RUNG, OP>(dt, out); }

#endif /* SL_ELEMENTWISE_CUH */
