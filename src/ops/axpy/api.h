/* sl_axpy: y[i] = alpha * x[i] + y[i] for i in [0, n), in place. Each
 * element is widened to fp32 (fp64 for SL_F64), computed as one fused
 * multiply-add fmaf(alpha, x[i], y[i]) (fma for f64; alpha stays a float:
 * it is never rounded to dtype), and rounded to nearest-even into dtype.
 *
 * dtype: SL_F32, SL_F64, SL_F16 or SL_BF16 (the fp8 types give
 * SL_ERR_UNSUPPORTED).
 * Shapes and units: x and y each hold n elements of `dtype`, contiguous.
 * alpha is any float (finite for meaningful results).
 * Alignment: each pointer aligned to the element size, nothing more. A
 * scalar head brings y to 16 bytes and the body runs vectorized; when x's
 * offset differs from y's modulo 16 bytes, x is read with aligned 16-byte
 * loads and realigned (funnel shifts), same results (docs/ladder.md,
 * "Issue 17"; the size-aware table in src/ops/common/ew_cuda.cu).
 * Aliasing: x == y is allowed (y = (alpha + 1) * y, rounded once).
 * Memory, stream, errors: the contract above.
 * Source: seed 001 ("Part 2", SAXPY and the bf16 haxpy exercise). */
sl_status sl_axpy(sl_ctx *ctx, sl_dtype dtype, size_t n, float alpha, const void *x, void *y, void *stream);

