/* sl_layernorm_bwd: the gradient of sl_layernorm_fwd. Given dy (the
 * gradient of y), x, w and the forward's mean and rstd, for every r < rows,
 * j < cols, with xh[r, j] = (x[r, j] - mean[r]) rstd[r] and g = w dy:
 *   c1[r]    = (1 / cols) sum_k w[k] dy[r, k],
 *   c2[r]    = (1 / cols) sum_k w[k] dy[r, k] xh[r, k],
 *   dx[r, j] = rstd[r] (w[j] dy[r, j] - c1[r] - xh[r, j] c2[r]),
 *   dw[j]    = sum_r dy[r, j] xh[r, j],    db[j] = sum_r dy[r, j].
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 for x, dy and dx; w_dtype: dtype or
 * SL_F32, for w, dw and db alike. mean, rstd: rows floats each, as
 * sl_layernorm_fwd wrote them. Shapes and units: x, dy, dx rows x cols,
 * row-major, contiguous; w, dw, db cols elements. rows = 0 or cols = 0 is
 * a no-op (dw and db are not written).
 * Workspace: the dw and db partials, sl_layernorm_bwd_workspace(rows, cols)
 * bytes (twice sl_rmsnorm_bwd_workspace's): pass a buffer of the context's
 * device of at least that size (no allocation in the call: safe under CUDA
 * graph capture), or NULL and 0 to use a buffer the context owns
 * (allocated, or grown, on first use: not inside a graph capture). Scratch;
 * one workspace must not serve two calls in flight at once; it must not overlap
 * another buffer of the call (SL_ERR_OVERLAP).
 * Numerics: f32 (16-bit storage widened exactly). The two row sums in f32
 * (at most 32 terms per thread in order, then a fixed tree); dw and db from
 * per-thread partials over at most 256 rows each, added per block in a
 * fixed order, then over the partials in fp64 in order: deterministic, the
 * same bits run to run (no atomics). dx, dw and db are within 16 x 2^-24
 * relative of the fp64 reference plus a bound relative to their terms:
 * 2 u rstd (3 |g| + 142 mean|g| + 146 |xh| mean|g xh|) for dx, 560 u
 * sum_r |dy xh| for dw and 550 u sum_r |dy| for db (u = 2^-24, the largest
 * over the matrix; derivation in src/ops/layernorm_bwd/layernorm_bwd.c),
 * plus one ulp of a 16-bit dtype. A NaN in a row of x or dy makes that row
 * of dx NaN and the NaN's column of dw (and db, for dy) NaN.
 * Aliasing: dx == dy or dx == x (in place) is allowed; dw or db equal to
 * w, or to each other, is SL_ERR_OVERLAP, as is any other overlap of the
 * written buffers with another buffer.
 * Alignment: each pointer aligned to its element. x, dy and dx at one
 * offset modulo 16 bytes (rows of a multiple of 16 bytes) take the
 * register kernels, or on sm_90 the shared-memory (bulk) ones for rows
 * of 32 KiB and more (rows up to 2^16 elements; docs/ladder.md has the
 * picks); others, a block per row with
 * scalar loads and a second pass for dw and db.
 * Errors: those of this header; w_dtype other than dtype or SL_F32
 * (SL_ERR_UNSUPPORTED), a workspace below the size query or NULL with a
 * size (SL_ERR_INVALID_ARG).
 * Source: issue 32; the derivative of Ba, Kiros and Hinton's layer
 * normalisation (2016). */
sl_status sl_layernorm_bwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                           const void *dy, const void *w, const float *mean, const float *rstd, void *dx, void *dw,
                           void *db, void *workspace, size_t workspace_bytes, void *stream);

/* Bytes of workspace sl_layernorm_bwd needs for rows x cols (any dtype, any
 * device): 2 x min(rows, ceil(rows / 256) + 2^22 / cols) x cols x 4. */
size_t sl_layernorm_bwd_workspace(size_t rows, size_t cols);
