/* sl_layernorm_fwd: layer normalisation of each row of a row-major
 * rows x cols matrix,
 *   mean[r] = (1 / cols) sum_j x[r, j],
 *   rstd[r] = 1 / sqrt((1 / cols) sum_j (x[r, j] - mean[r])^2 + eps),
 *   y[r, j] = (x[r, j] - mean[r]) * rstd[r] * w[j] + b[j],
 * for every r < rows, j < cols (the biased variance, as
 * torch.nn.functional.layer_norm); mean and rstd are kept for
 * sl_layernorm_bwd.
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 for x and y; w_dtype: dtype or SL_F32,
 * for w and b alike. Shapes and units: x and y hold rows x cols elements
 * of dtype, row-major, contiguous; w and b cols elements of w_dtype (both
 * required: pass ones and zeros for an affine-free norm); mean and rstd
 * rows floats each. eps: positive, taken as the nearest f32 (1e-5 is
 * torch's default). rows = 0 or cols = 0 is a no-op (nothing written).
 * Numerics: computed in f32 (16-bit storage widened exactly): the sum of x
 * in f32 (at most 64 terms a thread in order, then a fixed tree), mean =
 * sum / cols, then the variance from the row held in registers (two
 * passes: no E[x^2] - mean^2 cancellation), rsqrtf, y = fmaf((x - mean)
 * rstd, w, b) rounded to nearest-even into dtype. Tolerance (derivation:
 * src/ops/layernorm/layernorm.c): each of y, mean, rstd within 64 x 2^-24
 * relative of the fp64 reference plus an absolute term from the row's
 * scale: 2 x 107 u mean|x| for mean, 2 (60 |x - mean| + 107 mean|x|) u
 * rstd |w| for y (u = 2^-24, the largest over the matrix), plus one ulp of
 * dtype for bf16 / f16. A NaN in a row makes its mean, rstd and whole y
 * NaN; a row of zeros gives mean = 0, rstd = 1 / sqrt(eps) and y = b. A row whose
 * sum passes FLT_MAX overflows (inf / NaN). Deterministic: the same bits
 * run to run.
 * Aliasing: y == x (in place) is allowed; any other overlap between the
 * written buffers (y, mean, rstd) and the others is SL_ERR_OVERLAP.
 * Alignment: each pointer aligned to its element. x and y at the same
 * offset modulo 16 bytes take the register kernel (rows up to 2^17 bf16 /
 * f16, 2^16 f32 elements); others, and longer rows, a block per row with
 * scalar loads and three passes over x.
 * Memory, stream, errors: the contract of this header; w_dtype other than
 * dtype or SL_F32 is SL_ERR_UNSUPPORTED; eps not positive and finite is
 * SL_ERR_INVALID_ARG. No workspace.
 * Source: issue 32; Ba, Kiros and Hinton, "Layer Normalization" (2016),
 * equation 4. */
sl_status sl_layernorm_fwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                           const void *w, const void *b, double eps, void *y, float *mean, float *rstd, void *stream);
