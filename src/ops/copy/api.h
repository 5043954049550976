/* sl_copy: c[i] = a[i] for i in [0, n): the STREAM "Copy" kernel, bit for
 * bit: the bytes are moved, never converted, on every backend (no
 * arithmetic; NaN payloads, signalling NaNs and -0 kept as they are).
 *
 * dtype: any: SL_F32, SL_F64, SL_F16, SL_BF16, SL_FP8_E4M3, SL_FP8_E5M2.
 * Shapes and units: a and c each hold n elements of `dtype`, contiguous.
 * Aliasing: c == a is allowed (and then nothing moves).
 * Alignment, memory, stream, errors: the contract above.
 * Source: STREAM (McCalpin, "Memory Bandwidth and Machine Balance", 1995);
 * BabelStream 5.0 (UoB-HPC), the Copy kernel. */
sl_status sl_copy(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *a, void *c, void *stream);

