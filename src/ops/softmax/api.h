/* sl_softmax: row softmax of a row-major rows x cols matrix,
 *   y[r, j] = exp(x[r, j] - m_r) / sum_k exp(x[r, k] - m_r),  m_r = max_k x[r, k],
 * for every r < rows, j < cols.
 *
 * Numerics: computed in f32 (bf16 and f16 widened exactly on load): the row
 * maximum m is subtracted first, so large inputs do not overflow; the
 * difference x - m is split exactly into its f32 rounding h and the
 * rounding error l (TwoSum), and exp(x - m) = expf(h) (1 + l), so that the
 * error of exp does not grow with how far x lies below m (rounding x - m
 * alone costs up to |x - m| 2^-24 relative: 66 x 2^-24 at |x - m| = 80);
 * bf16 / f16 rows of up to 2^18 - 7 columns take __expf of the rounded
 * difference instead (its error, below 2^-16 relative, is under the
 * 16-bit output's rounding); the sum in f32 (fp64 on the CPU backend);
 * y = e x (1 / s), rounded to nearest-even into dtype. Each element y is
 * within 16 x 2^-24 (9.5e-7) x |want| + 2^-126 of want, the fp64
 * reference rounded into dtype, plus one ulp of dtype for bf16 / f16 (op.h,
 * SL_TOL_REL; 2^-126, f32's smallest normal, covers results that underflow
 * to subnormals or 0, such as exp(-100)), whatever the row's range
 * (tested on rows spanning +-20 and +-80 and rows mixing -1e4 with 0;
 * checked by `streamlab run`, tests/test_softmax_cpu and
 * tests/test_gpu_softmax). A row containing NaN
 * or +inf, and a row of -inf only, comes out all NaN (as torch.softmax);
 * -inf entries of an otherwise finite row give 0.
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
