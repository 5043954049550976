/* sl_nstream: a[i] += b[i] + s * c[i] for i in [0, n), in place: the
 * "nstream" kernel of the Parallel Research Kernels and BabelStream 5.0.
 * Computed as a[i] + fma(s, c[i], b[i]) in fp32 with s rounded to float
 * once (fp64 with s as is for SL_F64), rounded to nearest-even into dtype.
 *
 * dtype: SL_F32, SL_F64, SL_F16, SL_BF16.
 * Shapes and units: a, b and c each hold n elements of `dtype`, contiguous.
 * Aliasing: a is read and written; b and/or c may equal a.
 * Alignment, memory, stream, errors: the contract above.
 * Source: BabelStream 5.0 (UoB-HPC), Nstream; Parallel Research Kernels
 * (Van der Wijngaart and Mattson, 2014), nstream. */
sl_status sl_nstream(sl_ctx *ctx, sl_dtype dtype, size_t n, double s, void *a, const void *b, const void *c,
                     void *stream);

