/* sl_scale: b[i] = s * c[i] for i in [0, n): the STREAM "Scale" kernel
 * (BabelStream's Mul). Computed in fp32 with s rounded to float once (fp64
 * with s as is for SL_F64), rounded to nearest-even into dtype.
 *
 * dtype: SL_F32, SL_F64, SL_F16, SL_BF16.
 * Shapes and units: c and b each hold n elements of `dtype`, contiguous.
 * Aliasing: b == c is allowed (in place).
 * Alignment, memory, stream, errors: the contract above.
 * Source: STREAM (McCalpin, 1995); BabelStream 5.0 (UoB-HPC), Mul. */
sl_status sl_scale(sl_ctx *ctx, sl_dtype dtype, size_t n, double s, const void *c, void *b, void *stream);

