/* sl_triad: a[i] = b[i] + s * c[i] for i in [0, n): the STREAM "Triad"
 * kernel, computed as one fused multiply-add fma(s, c[i], b[i]) in fp32
 * with s rounded to float once (fp64 with s as is for SL_F64), rounded to
 * nearest-even into dtype.
 *
 * dtype: SL_F32, SL_F64, SL_F16, SL_BF16.
 * Shapes and units: a, b and c each hold n elements of `dtype`, contiguous.
 * Aliasing: a == b and/or a == c is allowed (in place).
 * Alignment, memory, stream, errors: the contract above.
 * Source: STREAM (McCalpin, 1995); BabelStream 5.0 (UoB-HPC), Triad. */
sl_status sl_triad(sl_ctx *ctx, sl_dtype dtype, size_t n, double s, const void *b, const void *c, void *a,
                   void *stream);

