/* sl_rmsnorm_fwd: RMSNorm of each row of a row-major rows x cols matrix,
 *   rstd[r] = 1 / sqrt((1 / cols) sum_j x[r, j]^2 + eps),
 *   y[r, j] = x[r, j] * rstd[r] * w[j],
 * for every r < rows, j < cols; rstd is kept for sl_rmsnorm_bwd.
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 for x and y; w_dtype: dtype or SL_F32.
 * Shapes and units: x and y hold rows x cols elements of dtype, row-major,
 * contiguous; w holds cols elements of w_dtype; rstd holds rows floats.
 * eps: positive, taken as the nearest f32 (1e-6 and 1e-5 are usual).
 * rows = 0 or cols = 0 is a no-op (nothing written).
 * Numerics: computed in f32 (16-bit storage widened exactly): the sum of
 * squares in f32 (every thread adds at most 64 terms in order, then a
 * fixed tree), rsqrtf, y = (x rstd) w rounded to nearest-even into dtype.
 * Each y and rstd is within 64 x 2^-24 (3.8e-6) relative of the fp64
 * reference, plus one ulp of dtype for bf16 / f16 (the derivation:
 * src/ops/rmsnorm/rmsnorm.c). A NaN in a row makes its rstd and its whole
 * y NaN; a row of zeros gives rstd = 1 / sqrt(eps) and y = 0. A row whose
 * sum of squares passes FLT_MAX (|x| ~ 1.8e19 / sqrt(cols) and beyond,
 * f32 or bf16 storage only) overflows to rstd = 0 and y = 0 (NaN where x
 * is inf). Deterministic: the same bits run to run.
 * Aliasing: y == x (in place) is allowed; any other overlap between the
 * written buffers (y, rstd) and the others is SL_ERR_OVERLAP.
 * Alignment: each pointer aligned to its element. x and y at the same
 * offset modulo 16 bytes take the 16-byte register kernel (rows up to
 * 2^17 bf16 / f16, 2^16 f32 elements); others, and longer rows, a block
 * per row with scalar loads, two passes over x.
 * Memory, stream, errors: the contract of this header; w_dtype other than
 * dtype or SL_F32 is SL_ERR_UNSUPPORTED; eps not positive and finite is
 * SL_ERR_INVALID_ARG. No workspace.
 * Source: issue 32; Zhang and Sennrich, "Root Mean Square Layer
 * Normalization" (NeurIPS 2019), equation 4. */
sl_status sl_rmsnorm_fwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                         const void *w, double eps, void *y, float *rstd, void *stream);
