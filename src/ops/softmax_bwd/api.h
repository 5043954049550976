/* sl_softmax_bwd: the backward pass of sl_softmax, row by row over
 * row-major rows x cols matrices,
 *   dx[r, j] = y[r, j] (dy[r, j] - s_r),   s_r = sum_k dy[r, k] y[r, k],
 * for every r < rows, j < cols: the gradient with respect to softmax's
 * input x, given its output y = softmax(x) and dy, the gradient with
 * respect to y. y may be any matrix (the formula does not assume rows
 * summing to 1).
 *
 * Numerics: computed in f32 (bf16 and f16 widened exactly on load): s is
 * an f32 sum of the products y dy (fused multiply-adds: a thread adds its
 * columns in order, then a warp / block tree and, for rows split over a
 * thread block cluster, the blocks' sums in rank order); dx = y (dy - s)
 * in f32, rounded to nearest-even into dtype. The CPU backend sums in
 * fp64 and forms dx in fp64. Error bound per element, checked by
 * `streamlab run` and tests/test_gpu_softmax_bwd against an fp64
 * reference: |dx - dx_exact| <= 2 ulp(dx) + |y_j| L 2^-24 sum_k |y_k dy_k|
 * with L = ceil(cols / 32) + 9 (the longest chain of f32 roundings;
 * Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * section 4.2). The second term is a cancellation bound: where s nearly
 * cancels dy_j, the relative error of dx_j is not small. Special values
 * follow IEEE arithmetic of the formula: a NaN in a row's y or dy makes s,
 * and so the whole row of dx, NaN; an infinity makes s infinite or NaN.
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 (sl_softmax's).
 * Shapes and units: y, dy and dx hold rows x cols elements of `dtype`,
 * row-major, contiguous (leading dimension = cols). rows = 0 or cols = 0
 * is a no-op.
 * Aliasing: dx == dy or dx == y (in place) is allowed; any other overlap
 * of dx with an input is SL_ERR_OVERLAP. y and dy may be the same array.
 * Alignment: each pointer aligned to its element; y, dy and dx at one
 * offset modulo 16 bytes take the 16-byte-load kernels, others a scalar
 * path.
 * Kernel (CUDA): y and dy are read once where the row fits on chip. On
 * sm_90, rows of whole 16-byte vectors with y, dy and dx 16-byte aligned,
 * up to 8 x 64 KiB of each input, in shared memory (bulk copies; a
 * cluster of up to 8 blocks per row, 16 where 8 would leave one block an
 * SM and the device schedules 16; a one-sided exchange of the row's sum):
 * every bf16 / f16 such row, and f32 rows of 128 KiB and more; other f32
 * rows of up to 2^17 elements (less the misalignment) in registers (a
 * warp, a block or a cluster of up to 8 blocks per row), then the shared-
 * memory path. Other
 * rows are read twice by a block per row (the second read mostly from
 * L2). docs/ladder.md has the measurements. Deterministic run to run.
 * Workspace: none. Memory, stream, errors: the contract above (streamlab.h);
 * rows x cols overflowing size_t is SL_ERR_INVALID_ARG.
 * Source: issue 33; the softmax ladder of seed 002 (docs/ladder.md,
 * "softmax backward"). */
sl_status sl_softmax_bwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *y, const void *dy,
                         void *dx, void *stream);
