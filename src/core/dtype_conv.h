/*
 * dtype_conv.h - bit-exact host conversions between fp32 and the storage
 * types f16, bf16, fp8 e4m3 and fp8 e5m2.
 *
 * Kernels compute in fp32 (fp64 for f64 data) and store with
 * round-to-nearest-even; the CPU
 * verifier uses these functions to build the exact bit patterns a kernel
 * must produce. They match CUDA 13's conversions bit for bit, NaN patterns
 * included (tests/test_dtype_conv_cuda.cu checks every pattern against the
 * host versions of the intrinsics):
 *
 *   sl_f32_to_f16        __float2half_rn
 *   sl_f32_to_bf16       __float2bfloat16_rn
 *   sl_f32_to_fp8_e4m3   __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)
 *   sl_f32_to_fp8_e5m2   __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)
 *   sl_f16_to_f32        __half2float
 *   sl_bf16_to_f32       __bfloat162float
 *   sl_fp8_e4m3_to_f32   float(__nv_fp8_e4m3)
 *   sl_fp8_e5m2_to_f32   float(__nv_fp8_e5m2)
 *
 * Every finite value widens exactly (subnormals included) and every narrowing
 * rounds to nearest, ties to even, with subnormal results and -0 kept. What
 * the formats do past their range and with NaN:
 *
 *   to f16      overflow (|x| >= 65520) -> +-Inf; NaN -> 0x7FFF (sign dropped)
 *   to bf16     overflow -> +-Inf; NaN -> 0x7FFF (sign and payload dropped)
 *   to e4m3     |x| > 448, +-Inf -> +-448 (0x7E / 0xFE); NaN -> 0x7F (sign dropped)
 *   to e5m2     |x| > 57344, +-Inf -> +-57344 (0x7B / 0xFB); NaN -> 0x7F (sign dropped)
 *   from f16 / e4m3 / e5m2 NaN -> 0x7FFFFFFF (sign and payload dropped)
 *   from bf16   any pattern, NaN included -> the pattern shifted left 16 bits
 *
 * On the device, NaN signs and payloads are the one thing these may not
 * reproduce (PTX only promises "a NaN"): compare NaN-ness, not NaN bits.
 *
 * No CUDA headers: plain C11, callable from C++ and CUDA host code.
 */
#ifndef SL_DTYPE_CONV_H
#define SL_DTYPE_CONV_H

#include <stddef.h>
#include <stdint.h>

#include "streamlab.h"

#ifdef __cplusplus
extern "C" {
#endif

uint16_t sl_f32_to_f16(float x);
float sl_f16_to_f32(uint16_t h);
uint16_t sl_f32_to_bf16(float x);
float sl_bf16_to_f32(uint16_t h);
uint8_t sl_f32_to_fp8_e4m3(float x);
float sl_fp8_e4m3_to_f32(uint8_t v);
uint8_t sl_f32_to_fp8_e5m2(float x);
float sl_fp8_e5m2_to_f32(uint8_t v);

/* Element i of an array of dt at base (sl_dtype_size(dt) bytes each, native
 * byte order): store rounds x into dt with the sl_f32_to_* function above
 * (SL_F32 stores x as is, SL_F64 widens it exactly); load widens it
 * exactly (SL_F64 rounds to nearest-even into fp32: use the _f64 pair for
 * f64 data). An invalid dt stores nothing and loads NaN. */
void sl_dtype_store(sl_dtype dt, void *base, size_t i, float x);
float sl_dtype_load(sl_dtype dt, const void *base, size_t i);

/* The same in fp64: for SL_F64 the value as is; every other dtype widens
 * exactly on load, and on store x must be representable in fp32 (it is
 * rounded to fp32 first, then as sl_dtype_store does). */
void sl_dtype_store_f64(sl_dtype dt, void *base, size_t i, double x);
double sl_dtype_load_f64(sl_dtype dt, const void *base, size_t i);

/* One ulp of dt at x: the spacing of dt's representable numbers in the
 * binade holding |x|, 2^(e - p + 1) for |x| in [2^e, 2^(e+1)) and p bits of
 * precision. Below the smallest normal (and at 0) it is the subnormal
 * spacing; at or above the largest finite value (Inf included) it is the
 * spacing of the top binade; NaN for NaN or an invalid dt. Exact (a power of
 * two). For tolerances: a correctly rounded store is within ulp/2 of x. */
double sl_dtype_ulp(sl_dtype dt, double x);

#ifdef __cplusplus
}
#endif

#endif /* SL_DTYPE_CONV_H */
