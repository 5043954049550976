/* sl_softmax: row softmax of a row-major rows x cols matrix,
 *   y[r, j] = exp(x[r, j] - m_r) / sum_k exp(x[r, k] - m_r),  m_r = max_k x[r, k],
 * for every r < rows, j < cols.
 *
 * Numerics: computed in f32 (bf16 and f16 widened exactly on load): the row
 * maximum m is subtracted first, so large inputs do not overflow; expf
 * (the accurate one) of the difference rounded to f32 for f32, ex2.approx
 * (2^-22 relative) for bf16 / f16 rows of up to 2^18 - 7 columns, there
 * taken from each thread's own maximum and rescaled by exp(m_t - m) (a
 * ~1e-5 relative error at most, below the 16-bit output's rounding); the
 * sum in f32 (fp64 on the CPU backend); y = e x (1 / s), rounded to
 * nearest-even into dtype.
 * Bound: each element y_j is within
 *   (16 + ln(1 / |want_j|) + ln n) x 2^-24 x |want_j| + 2^-126
 * of want_j, the fp64 reference rounded into dtype, plus one ulp of dtype
 * for bf16 / f16, where n = cols (op.h, SL_TOL_REL with log terms; checked
 * by `streamlab run`, tests/test_softmax_cpu and tests/test_gpu_softmax).
 * Where it comes from: x_j - m rounded to f32 is off by at most
 * |x_j - m| 2^-24 (half an ulp), and exp turns that absolute error of its
 * argument into the same relative error of e_j; since y_j = e^(x_j - m) / s
 * with s >= 1 (the maximum's own term), |x_j - m| <= ln(1 / y_j). The sum s
 * gathers these errors weighted by y: sum_k y_k |x_k - m| 2^-24, and
 * sum_k y_k |x_k - m| = H(y) - ln s <= ln n (H the entropy of y). The 16
 * covers expf's 2 ulp, the sum's own rounding, the reciprocal and the last
 * product (measured: at most 10.9 x 2^-24 with |x - m| < 16, issue 25).
 * So rows within +-8 stay near 16 x 2^-24, and a logit 80 below its row's
 * maximum may be off by ~70 x 2^-24 (4.2e-6) relative. The split
 * x - m = h + l (TwoSum) with expf(h) (1 + l) would keep 16 x 2^-24 for
 * every row, but it cost 12% at 4096 x 2^15 f32 on an H200 (2.2% at
 * 16384 x 2^14; bf16 unaffected; bench/results/h200-correctness-2026-11-26.md),
 * so the bound is stated instead (issue 25). 2^-126 (f32's smallest
 * normal) covers results that underflow to subnormals or 0. A row
 * containing NaN or +inf, and a row of -inf only, comes out all NaN (as
 * torch.softmax); -inf entries of an otherwise finite row give 0.
 *
 * dtype: SL_F32, SL_BF16 or SL_F16.
 * Shapes and units: x and y hold rows x cols elements of `dtype`, row-major,
 * contiguous (leading dimension = cols). rows = 0 or cols = 0 is a no-op.
 * Aliasing: y == x (in place) is allowed; any other overlap is
 * SL_ERR_OVERLAP.
 * Alignment: each pointer aligned to its element; x and y at the same
 * offset modulo 16 bytes take the 16-byte-load kernels, others a scalar
 * path (docs/ladder.md, "softmax").
 * Kernel (CUDA): rows of up to 2^18 - 7 columns are held in registers and
 * read once (a warp, a block or a cluster of up to 8 blocks per row);
 * longer rows take two passes over x (the online normaliser). Not
 * deterministic across devices with different SM counts (the split of a
 * row follows the SM count), deterministic run to run on one.
 * Memory, stream, errors: the contract above; rows x cols overflowing
 * size_t is SL_ERR_INVALID_ARG.
 * Source: seed 002 (the softmax ladder); Milakov and Gimelshein, "Online
 * normalizer calculation for softmax" (arXiv:1805.02867, 2018). */
sl_status sl_softmax(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *x, void *y, void *stream);
