/* sl_rmsnorm_bwd: the gradient of sl_rmsnorm_fwd. Given dy (the gradient
 * of y), x, w and the forward's rstd, for every r < rows, j < cols:
 *   D[r]     = sum_k w[k] dy[r, k] x[r, k],
 *   dx[r, j] = rstd[r] w[j] dy[r, j] - x[r, j] rstd[r]^3 D[r] / cols,
 *   dw[j]    = sum_r dy[r, j] x[r, j] rstd[r].
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 for x, dy and dx; w_dtype: dtype or
 * SL_F32, for w and dw alike. rstd: rows floats, as sl_rmsnorm_fwd wrote.
 * Shapes and units: x, dy, dx rows x cols, row-major, contiguous; w, dw
 * cols elements. rows = 0 or cols = 0 is a no-op (dw is not written).
 * Workspace: the dw partials, sl_rmsnorm_bwd_workspace(rows, cols) bytes
 * (about 16 MiB + rows x cols / 64 bytes): pass a buffer of the
 * context's device of at least that size (no allocation in the call: safe
 * under CUDA graph capture), or NULL and 0 to use a buffer the context
 * owns (allocated, or grown, on first use: not inside a graph capture).
 * Its contents need no initialisation and are scratch afterwards; one
 * workspace must not serve two calls in flight at once; it must not overlap
 * another buffer of the call (SL_ERR_OVERLAP).
 * Numerics: f32 (16-bit storage widened exactly). D in f32 (at most 32
 * terms per thread in order, then a fixed tree); dw from per-thread
 * partials over at most 256 rows each, added per block in a fixed order,
 * then over the partials in fp64 in order: deterministic, the same bits
 * run to run (no atomics). dx and dw are within 16 x 2^-24 relative of the
 * fp64 reference plus a bound relative to their terms: 2 x (4 u |rstd w
 * dy| + 146 u |x| rstd^3 sum|w dy x| / cols) for dx and 550 u sum_r |dy x
 * rstd| for dw (u = 2^-24, the largest over the matrix; derivation in
 * src/ops/rmsnorm_bwd/rmsnorm_bwd.c), plus one ulp of a 16-bit dtype. A
 * NaN in a row of x or dy makes that row of dx NaN (through D) and the
 * NaN's column of dw NaN.
 * Aliasing: dx == dy or dx == x (in place) is allowed; dw == w is
 * SL_ERR_OVERLAP, as is any other overlap of dx or dw with another buffer.
 * Alignment: each pointer aligned to its element. x, dy and dx at one
 * offset modulo 16 bytes (rows of a multiple of 16 bytes) take the
 * register kernels, or on sm_90 the shared-memory (bulk) ones for rows
 * of 32 KiB and more and for 16-bit rows of 2048 columns at 16384 rows
 * and more (rows up to 2^16 elements; 16-bit rows over 32 KiB with w in
 * their dtype in blocks of 256; docs/ladder.md has the picks);
 * others, a block per row with scalar loads and a second pass for dw.
 * Errors: those of this header; w_dtype other than dtype or SL_F32
 * (SL_ERR_UNSUPPORTED), a workspace below the size query or NULL with a
 * size (SL_ERR_INVALID_ARG).
 * Source: issue 32; the derivative of Zhang and Sennrich's RMSNorm
 * (NeurIPS 2019). */
sl_status sl_rmsnorm_bwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                         const void *dy, const void *w, const float *rstd, void *dx, void *dw, void *workspace,
                         size_t workspace_bytes, void *stream);

/* Bytes of workspace sl_rmsnorm_bwd needs for rows x cols (any dtype, any
 * device): min(rows, ceil(rows / 256) + 2^22 / cols) x cols x 4. */
size_t sl_rmsnorm_bwd_workspace(size_t rows, size_t cols);
