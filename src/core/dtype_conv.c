/*
 * dtype_conv.c - see dtype_conv.h. Written from the format definitions with
 * integer bit manipulation only, so the results do not depend on the host's
 * floating-point environment (rounding mode, flush-to-zero, x87 precision).
 *
 * The formats (sign, exponent and mantissa bits; bias; smallest normal
 * exponent emin = 1 - bias):
 *
 *   f32   1 8 23  bias 127  IEEE 754-2008 binary32
 *   f16   1 5 10  bias 15   IEEE 754-2008 binary16; max 65504, Inf/NaN at exponent 31
 *   bf16  1 8 7   bias 127  the top half of binary32; max 0x1.FEp127, Inf/NaN at exponent 255
 *   e4m3  1 4 3   bias 7    OCP 8-bit Floating Point Specification (OFP8) rev 1.0, "E4M3":
 *                           no infinities, exponent 15 holds normal numbers up to
 *                           1.75 x 2^8 = 448 (0x7E), S.1111.111 (0x7F, 0xFF) is NaN
 *   e5m2  1 5 2   bias 15   OFP8 rev 1.0 "E5M2": IEEE-like, max 1.75 x 2^15 = 57344
 *                           (0x7B), Inf 0x7C, NaN 0x7D..0x7F (and with the sign)
 *
 * Overflow on the narrowing to fp8 saturates, as __NV_SATFINITE in CUDA's
 * cuda_fp8.h does: any |x| past the largest finite value, and +-Inf, gives
 * +-max finite. NaN gives 0x7F in both fp8 formats whatever the NaN's sign,
 * as cuda_fp8.h's host path does.
 */
#include "dtype_conv.h"

#include <string.h>

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#define F32_SIGN 0x80000000u
#define F32_ABS 0x7fffffffu
#define F32_INF 0x7f800000u
#define F32_QNAN 0x7fffffffu /* what CUDA's widenings return for every NaN */

/*
 * Round the finite, non-negative binary32 magnitude a (bits, sign clear) to a
 * format with mbits stored mantissa bits and smallest normal exponent emin,
 * round to nearest, ties to even, and return its magnitude encoding
 * (exponent field << mbits | mantissa field) as if the exponent field had no
 * upper limit: the caller turns encodings past its largest finite value into
 * Inf or the saturated maximum.
 *
 * Integer significands make this one computation for normal and subnormal
 * results. a is sig x 2^(e - 23) with sig the 24-bit significand (hidden bit
 * included) and e its unbiased exponent. The target's quantum at that
 * exponent is 2^(max(e, emin) - mbits), so q = sig >> shift, rounded, is the
 * result's integer significand, shift = 23 - mbits + max(0, emin - e). The
 * encoding of significand q in binade max(e, emin) is
 * ((max(e, emin) - emin) << mbits) + q: for a normal result q carries the
 * hidden bit, which adds the 1 that the biased exponent field
 * max(e, emin) - emin + 1 needs; a subnormal result has q < 2^mbits in the
 * zero exponent field. A rounding carry out of q (q == 2^(mbits+1), or
 * 2^mbits from the subnormal range) lands in the exponent field by plain
 * addition: the next binade, or the smallest normal.
 */
static uint32_t round_mag(uint32_t a, int mbits, int emin)
{
    uint32_t efield = a >> 23, sig = a & 0x7fffffu;
    int e;
    if (efield == 0) {
        e = -126; /* binary32 subnormal or zero: no hidden bit */
    } else {
        e = (int)efield - 127;
        sig |= 0x800000u;
    }
    int eb = e > emin ? e : emin;
    int shift = 23 - mbits + (eb - e);
    if (shift >= 32)
        return 0; /* sig < 2^24 <= half an ulp at shift >= 25: rounds to zero */
    /* Round to nearest even in one add: half an ulp less one, plus the kept
     * LSB, carries into the kept bits exactly when the dropped bits exceed
     * half an ulp, or equal it with the kept LSB odd. No overflow: sig < 2^24. */
    uint32_t half = 1u << (shift - 1);
    uint32_t q = (sig + (half - 1u) + ((sig >> shift) & 1u)) >> shift;
    return ((uint32_t)(eb - emin) << mbits) + q;
}

/*
 * Widen the magnitude encoding m (exponent field << mbits | mantissa field,
 * finite) of a format with mbits mantissa bits and exponent bias `bias` to
 * binary32 bits. Every such value is a normal binary32 (the smallest, 2^-24
 * for f16, is far above 2^-126), so the result is exact.
 */
static uint32_t widen_mag(uint32_t m, int mbits, int bias)
{
    uint32_t mant = m & ((1u << mbits) - 1u);
    int efield = (int)(m >> mbits);
    if (efield == 0) {
        if (mant == 0)
            return 0;
        /* Subnormal: mant x 2^(1 - bias - mbits). Normalise until the leading
         * one sits in the hidden-bit position 2^mbits. */
        efield = 1;
        while (!(mant & (1u << mbits))) {
            mant <<= 1;
            efield--;
        }
        mant &= (1u << mbits) - 1u;
    }
    uint32_t e32 = (uint32_t)(efield - bias + 127);
    return (e32 << 23) | (mant << (23 - mbits));
}

/* ---- f16: IEEE 754-2008 binary16 ---------------------------------------
 * 1 sign, 5 exponent, 10 mantissa bits, bias 15. Normals 2^-14 .. 65504
 * (0x7BFF), subnormals down to 2^-24 (0x0001), Inf 0x7C00, NaN 0x7C01..0x7FFF.
 * Narrowing as __float2half_rn (cuda_fp16.h): RNE; |x| >= 65520 (halfway from
 * 65504 to 2^16, which is even) overflows to Inf; NaN -> 0x7FFF (the sign is
 * dropped, as CUDA does). */
uint16_t sl_f32_to_f16(float x)
{
    uint32_t u = f32_bits(x), a = u & F32_ABS;
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > F32_INF)
        return 0x7fffu;
    if (a == F32_INF)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t m = round_mag(a, 10, -14);
    if (m > 0x7c00u)
        m = 0x7c00u;
    return (uint16_t)(sign | m);
}

/* binary16 to binary32, exact. NaN -> 0x7FFFFFFF (sign and payload dropped,
 * as __half2float's host path does). */
float sl_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, m = h & 0x7fffu;
    if (m > 0x7c00u)
        return bits_f32(F32_QNAN);
    if (m == 0x7c00u)
        return bits_f32(sign | F32_INF);
    return bits_f32(sign | widen_mag(m, 10, 15));
}

/* ---- bf16: bfloat16, the upper 16 bits of binary32 ----------------------
 * 1 sign, 8 exponent, 7 mantissa bits, bias 127. Normals 2^-126 ..
 * 0x1.FEp127 (0x7F7F), subnormals down to 2^-133, Inf 0x7F80, NaN
 * 0x7F81..0x7FFF. Narrowing as __float2bfloat16_rn (cuda_bf16.h): RNE on the
 * 16 dropped bits (binary32 subnormals round like any other value, into the
 * bf16 subnormals); overflow carries into the exponent and gives Inf;
 * NaN -> 0x7FFF whatever its sign and payload. */
uint16_t sl_f32_to_bf16(float x)
{
    uint32_t u = f32_bits(x);
    if ((u & F32_ABS) > F32_INF)
        return 0x7fffu;
    /* Adding 0x7FFF rounds up exactly when the dropped half exceeds 0x8000;
     * adding the kept LSB as well breaks the tie at 0x8000 towards even. A
     * carry out of the mantissa increments the exponent, up to Inf at most
     * (0x7F7FFFFF + 0x8000 = 0x7F807FFF). */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* bfloat16 to binary32, exact for every pattern: NaN payloads and signs are
 * kept (the pattern shifted up 16 bits, as __bfloat162float's host path). */
float sl_bf16_to_f32(uint16_t h)
{
    return bits_f32((uint32_t)h << 16);
}

/* ---- fp8 e4m3: OCP OFP8 rev 1.0 E4M3 (CUDA's __NV_E4M3, "E4M3FN") -------
 * 1 sign, 4 exponent, 3 mantissa bits, bias 7. Normals 2^-6 .. 448 (0x7E;
 * exponent field 15 is an ordinary binade apart from its all-ones mantissa),
 * subnormals 2^-9 .. 0.875 x 2^-6, no Inf, NaN only 0x7F and 0xFF.
 * Narrowing as __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)
 * (cuda_fp8.h): RNE; a result past 448 (|x| > 464; 464 itself is a tie that
 * goes to 448, whose mantissa is even) and +-Inf saturate to +-448
 * (0x7E / 0xFE); NaN -> 0x7F whatever its sign; magnitudes up to 2^-10 (half
 * the smallest subnormal, a tie that goes to even zero) give a zero that
 * keeps x's sign. */
/* The saturating fp8 narrowing both formats share: RNE to mbits mantissa
 * bits with emin the smallest normal exponent, magnitudes past max_code
 * (and +-Inf) clamped to it, NaN to 0x7F. */
static uint8_t fp8_narrow_sat(float x, int mbits, int emin, uint32_t max_code)
{
    uint32_t u = f32_bits(x), a = u & F32_ABS;
    uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
    if (a > F32_INF)
        return 0x7fu;
    uint32_t m = a == F32_INF ? max_code : round_mag(a, mbits, emin);
    if (m > max_code)
        m = max_code;
    return (uint8_t)(sign | m);
}

uint8_t sl_f32_to_fp8_e4m3(float x)
{
    return fp8_narrow_sat(x, 3, -6, 0x7eu);
}

/* e4m3 to binary32, exact. NaN (0x7F, 0xFF) -> 0x7FFFFFFF, as CUDA's
 * float(__nv_fp8_e4m3) host path (through a half) does. */
float sl_fp8_e4m3_to_f32(uint8_t v)
{
    uint32_t sign = (uint32_t)(v & 0x80u) << 24, m = v & 0x7fu;
    if (m == 0x7fu)
        return bits_f32(F32_QNAN);
    return bits_f32(sign | widen_mag(m, 3, 7));
}

/* ---- fp8 e5m2: OCP OFP8 rev 1.0 E5M2 (CUDA's __NV_E5M2) -----------------
 * 1 sign, 5 exponent, 2 mantissa bits, bias 15: binary16 with 8 mantissa
 * bits cut off. Normals 2^-14 .. 57344 (0x7B), subnormals 2^-16 .. 0.75 x
 * 2^-14, Inf 0x7C, NaN 0x7D..0x7F (and 0xFD..0xFF).
 * Narrowing as __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)
 * (cuda_fp8.h): RNE; a result past 57344 (|x| >= 61440, the tie going to
 * the even 2^16) and +-Inf saturate to +-57344 (0x7B / 0xFB): under
 * SATFINITE Inf never comes out. NaN -> 0x7F whatever its sign; magnitudes up
 * to 2^-17 give a signed zero. */
uint8_t sl_f32_to_fp8_e5m2(float x)
{
    return fp8_narrow_sat(x, 2, -14, 0x7bu);
}

/* e5m2 to binary32, exact; +-Inf stays +-Inf; NaN -> 0x7FFFFFFF, as CUDA's
 * float(__nv_fp8_e5m2) host path (through a half) does. */
float sl_fp8_e5m2_to_f32(uint8_t v)
{
    uint32_t sign = (uint32_t)(v & 0x80u) << 24, m = v & 0x7fu;
    if (m > 0x7cu)
        return bits_f32(F32_QNAN);
    if (m == 0x7cu)
        return bits_f32(sign | F32_INF);
    return bits_f32(sign | widen_mag(m, 2, 15));
}

/* ---- by sl_dtype ------------------------------------------------------- */

void sl_dtype_store(sl_dtype dt, void *base, size_t i, float x)
{
    switch (dt) {
    case SL_F32:
        ((float *)base)[i] = x;
        break;
    case SL_F16:
        ((uint16_t *)base)[i] = sl_f32_to_f16(x);
        break;
    case SL_BF16:
        ((uint16_t *)base)[i] = sl_f32_to_bf16(x);
        break;
    case SL_FP8_E4M3:
        ((uint8_t *)base)[i] = sl_f32_to_fp8_e4m3(x);
        break;
    case SL_FP8_E5M2:
        ((uint8_t *)base)[i] = sl_f32_to_fp8_e5m2(x);
        break;
    case SL_F64:
        ((double *)base)[i] = (double)x;
        break;
    default:
        break;
    }
}

void sl_dtype_store_f64(sl_dtype dt, void *base, size_t i, double x)
{
    if (dt == SL_F64)
        ((double *)base)[i] = x;
    else
        sl_dtype_store(dt, base, i, (float)x);
}

double sl_dtype_load_f64(sl_dtype dt, const void *base, size_t i)
{
    return dt == SL_F64 ? ((const double *)base)[i] : (double)sl_dtype_load(dt, base, i);
}

float sl_dtype_load(sl_dtype dt, const void *base, size_t i)
{
    switch (dt) {
    case SL_F32:
        return ((const float *)base)[i];
    case SL_F64:
        return (float)((const double *)base)[i];
    case SL_F16:
        return sl_f16_to_f32(((const uint16_t *)base)[i]);
    case SL_BF16:
        return sl_bf16_to_f32(((const uint16_t *)base)[i]);
    case SL_FP8_E4M3:
        return sl_fp8_e4m3_to_f32(((const uint8_t *)base)[i]);
    case SL_FP8_E5M2:
        return sl_fp8_e5m2_to_f32(((const uint8_t *)base)[i]);
    default:
        return bits_f32(F32_QNAN);
    }
}

/* 2^k as a double, exactly, for the k in [-1022, 1023] used here. */
static double pow2(int k)
{
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

double sl_dtype_ulp(sl_dtype dt, double x)
{
    int mbits, emin, emax; /* stored mantissa bits; exponents of the lowest and highest binades */
    switch (dt) {
    case SL_F32: mbits = 23; emin = -126; emax = 127; break;
    case SL_F64: mbits = 52; emin = -1022; emax = 1023; break;
    case SL_F16: mbits = 10; emin = -14; emax = 15; break;
    case SL_BF16: mbits = 7; emin = -126; emax = 127; break;
    case SL_FP8_E4M3: mbits = 3; emin = -6; emax = 8; break;
    case SL_FP8_E5M2: mbits = 2; emin = -14; emax = 15; break;
    default: return (double)bits_f32(F32_QNAN);
    }
    if (x != x)
        return x;
    /* The binade of |x| from its binary64 exponent (exact for every value
     * of every format here); zero and subnormals lie below emin. */
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int biased = (int)((b >> 52) & 0x7ffu);
    int e = biased ? biased - 1023 : emin;
    if (e < emin)
        e = emin;
    if (e > emax)
        e = emax;
    /* 2^(e - mbits) down to 2^-1074 fits pow2's range for every format but
     * f64's subnormal spacing: that one is built directly. */
    if (e - mbits < -1022) {
        uint64_t tiny = (uint64_t)1 << (e - mbits + 1074);
        double d;
        memcpy(&d, &tiny, sizeof d);
        return d;
    }
    return pow2(e - mbits);
}
