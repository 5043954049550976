/*
 * softmax.cuh - what the CUDA softmax rungs share beyond the row ops'
 * building blocks (src/ops/common/row.cuh: geometry, loads and stores,
 * 16-byte virtual vectors, the warp and block reductions, the dtype
 * dispatch): the exp of the register rung, the online normaliser's
 * (max, sum) combine, and softmax's launch checks.
 *
 * Numerics, every rung: the row maximum m (fmaxf; the identity is -inf),
 * e_j = expf(x_j - m) (the accurate expf; the register rung's 16-bit
 * kernels use ex2.approx.ftz, smx_exp_ftz below, its few-row kernel
 * relative to each thread's own max, rescaled by exp(m_t - m) in the sum
 * and the store, 08_regs.cu, smx_regs_h), s = sum e_j in f32 (compensated
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

#include "row.cuh"
#include "softmax.h"

/* ---- exp for the register rung ------------------------------------------------
 * f32: the accurate expf (2 ulp). 16-bit storage: ex2.approx of x log2 e
 * (smx_exp_ftz below; relative error ~2^-22 plus |x| 2^-24 from the
 * product, about 1e-6 for the |x - max| <= 16 of the tests), three
 * instructions instead of about ten. The result is rounded to bf16 (2^-9)
 * or f16 (2^-11), so the difference from expf moves it by at most the one
 * ulp of the dtype that SL_TOL_REL allows for 16-bit outputs (op.h). The
 * first H200 run showed bf16 at DRAM shapes doing no more elements per
 * second than f32: the per-element work, not the bytes, set its time.
 * (__expf, the same instruction plus a range test and two multiplies for
 * subnormal results, served the few-row 16-bit kernel until its fused
 * pass, 08_regs.cu, smx_regs_h.) */

/* ---- 16-bit storage: packed max and the flushing exp (08_regs.cu's packed
 * kernel and 09_bulk.cu) ----------------------------------------------------- */

/* The two lanes' maxima of two packed pairs (HMNMX2: a NaN lane gives the
 * other operand, as fmaxf; a NaN still makes its row NaN through the sum,
 * smx_regs_pk). */
template <int DT> static __device__ __forceinline__ uint32_t smx_hmax2(uint32_t a, uint32_t b);
template <> __device__ __forceinline__ uint32_t smx_hmax2<SL_BF16>(uint32_t a, uint32_t b)
{
    __nv_bfloat162 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    const __nv_bfloat162 r = __hmax2(x, y);
    uint32_t u;
    memcpy(&u, &r, 4);
    return u;
}
template <> __device__ __forceinline__ uint32_t smx_hmax2<SL_F16>(uint32_t a, uint32_t b)
{
    __half2 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    const __half2 r = __hmax2(x, y);
    uint32_t u;
    memcpy(&u, &r, 4);
    return u;
}

/* exp(d) for the 16-bit kernel: 2^(d log2 e) by ex2.approx.ftz (PTX ISA,
 * "ex2": maximum relative error 2^-22 over the full range; results below
 * 2^-126 flush to 0). __expf is the same instruction without .ftz plus a
 * range test and two multiplies a call (SASS: FSETP.GEU and 2 FMUL per exp)
 * to keep subnormal results; here a flushed e < 2^-126 gives y < 2^-126,
 * inside the absolute 2^-126 of SL_TOL_REL, and the sum s >= 1 (the
 * maximum's own term) never notices. */
static __device__ __forceinline__ float smx_exp_ftz(float d)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d * 1.4426950408889634f));
    return r;
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

#endif /* SL_OP_SOFTMAX_CUH */
