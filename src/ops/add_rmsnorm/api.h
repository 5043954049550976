/* sl_add_rmsnorm_fwd: the residual add fused with RMSNorm, as a
 * transformer block's pre-norm uses it: for every r < rows, j < cols,
 *   h[r, j]  = x[r, j] + res[r, j], rounded into dtype (written out: the
 *              next block's residual),
 *   rstd[r]  = 1 / sqrt((1 / cols) sum_j h[r, j]^2 + eps),
 *   y[r, j]  = h[r, j] * rstd[r] * w[j],
 * the norm taken of h as stored (rounded), so that the result is that of
 * an add followed by sl_rmsnorm_fwd, in one pass over memory.
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 for x, res, h and y; w_dtype: dtype or
 * SL_F32. Shapes and units: x, res, h, y rows x cols, row-major,
 * contiguous; w cols elements; rstd rows floats. eps positive (taken as
 * the nearest f32). rows = 0 or cols = 0 is a no-op.
 * Numerics: h is x + res in f32, rounded once into dtype (for 16-bit
 * dtypes the f32 sum of two of their values is exact or below half their
 * ulp: h is the correctly rounded sum, bit for bit); y and rstd as
 * sl_rmsnorm_fwd on h: within 64 x 2^-24 relative of the fp64 reference,
 * plus one ulp of a 16-bit dtype. NaN propagates (a NaN in x or res makes
 * h there, and that row's rstd and y, NaN). Deterministic.
 * Aliasing: h may be x or res, and y may be x or res (in place: each
 * element is read before it is written, by the thread that writes it);
 * h == y is SL_ERR_OVERLAP, as is any other overlap of the written
 * buffers with another buffer.
 * Alignment: each pointer aligned to its element. x, res, h and y at one
 * offset modulo 16 bytes take the register kernel (rows up to 2^17 bf16 /
 * f16, 2^16 f32 elements); others a block per row with scalar loads.
 * Errors: as sl_rmsnorm_fwd. No workspace.
 * Source: issue 32 (the "fused add + RMSNorm" of LLM blocks; Zhang and
 * Sennrich, NeurIPS 2019, for the norm). */
sl_status sl_add_rmsnorm_fwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                             const void *res, const void *w, double eps, void *h, void *y, float *rstd,
                             void *stream);
