/* Cross-entropy over large vocabularies (issue 33). */

/* The element type of a target array. */
typedef enum sl_index_type {
    SL_INDEX_I32 = 0, /* int32_t */
    SL_INDEX_I64 = 1  /* int64_t (torch's class indices) */
} sl_index_type;

/* How per-row losses are combined, as torch.nn.functional.cross_entropy's
 * `reduction`. */
typedef enum sl_reduction {
    SL_REDUCTION_NONE = 0, /* one loss per row */
    SL_REDUCTION_MEAN = 1, /* the sum over rows not ignored, divided by their count */
    SL_REDUCTION_SUM = 2   /* the sum over rows (ignored rows add 0) */
} sl_reduction;

/* sl_cross_entropy_fwd_bwd: the cross-entropy loss of each row of logits
 * and its gradient, in one pass over the logits (fused forward and
 * backward, as an LLM's loss over a vocabulary of V = cols classes). For
 * row r < rows with target class t = targets[r] and smoothing eps:
 *   lse[r]  = log sum_j exp(x[r, j])                         (logsumexp)
 *   l_r     = lse[r] - (1 - eps) x[r, t] - (eps / V) sum_j x[r, j]
 *   dlogits[r, j] = (exp(x[r, j] - lse[r]) - (1 - eps) [j = t] - eps / V) g
 * where g = 1 for SL_REDUCTION_NONE and SUM, and 1 / (the rows whose
 * target is not ignore_index) for MEAN: the gradient of the reduced loss.
 * A row whose target equals ignore_index has l_r = 0 and a zero gradient
 * row (its lse is still written). loss receives the l_r (NONE: rows
 * floats), their sum (SUM: one float) or their mean over rows not ignored
 * (MEAN: one float; NaN when every row is ignored, 0 / 0, as torch).
 * The same as torch.nn.functional.cross_entropy(x, t, ignore_index=...,
 * label_smoothing=eps, reduction=...) and its backward.
 *
 * Numerics: f32 throughout (bf16 / f16 logits widened exactly): the row
 * maximum m is subtracted before exp (on CUDA 2^((x - m) log2 e) by
 * ex2.approx, relative error 2^-22, the bulk kernel's as one fma
 * 2^(x log2 e - m log2 e) with m log2 e rounded once a block, whose
 * rounding scales the block's sum and gradient terms alike; the CPU's
 * expf), s = sum exp(x - m)
 * and sum x in f32 (fp64 on the CPU backend), lse = m + log s, the losses and lse
 * stored as f32, the gradient rounded to nearest-even into dtype.
 * Checked against an fp64 reference (`streamlab run --op xent`,
 * tests/test_xent_cpu and test_gpu_xent): loss and lse within
 * (16 + L) 2^-24 relative plus (16 + L) 2^-24 (S + ln V + 1) absolute,
 * the gradient within (16 + L + 4 S) 2^-24 relative plus (16 + L) 2^-24
 * absolute (plus one ulp of a 16-bit dtype), L = ceil(log2 V) + 1, S the
 * largest |max|, |lse| or |target logit| of a row (at least 1); bf16 / f16
 * rows longer than 2^15 that the bulk kernel does not take (the gradient
 * computed from the f32 lse, see Kernel) add sl_cross_entropy_bwd's (2 S + 8) 2^-24 p term, p the
 * element's probability (the target's p - (1 - eps) cancels near 1); the sums
 * of MEAN and SUM add their own rounding (an f32 sum over rows). A NaN
 * logit makes its row's loss, lse and gradient NaN; an infinite one, the
 * formula's IEEE result.
 *
 * Targets out of range (t < 0 or t >= V, other than ignore_index): on a
 * CPU context, SL_ERR_INVALID_ARG before anything is written. On a CUDA
 * context no check precedes the launch (it would cost a copy back and a
 * synchronisation): the row's loss and gradient are NaN (so a MEAN or SUM
 * loss is NaN), its lse is written, and x[r, t] is never read (no access
 * outside the logits). Test a loss for NaN to detect it.
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 for logits and dlogits; loss and lse
 * are f32; targets int32 or int64: target_type is an sl_index_type and
 * reduction an sl_reduction, both passed as int (and ignore_index as
 * int64_t) so that every binding reads the declaration with plain types.
 * Shapes and units: logits and dlogits rows x cols elements, row-major,
 * contiguous; targets, lse: rows elements; loss: rows (NONE) or 1.
 * rows = 0: nothing is computed; MEAN writes NaN, SUM 0. cols = 0 with
 * rows > 0: SL_ERR_INVALID_ARG.
 * Aliasing: dlogits == logits (the gradient over the logits, in place:
 * no second matrix at 256k vocabularies) is allowed; any other overlap of
 * a written array (loss, lse, dlogits) with another is SL_ERR_OVERLAP.
 * Alignment: each array aligned to its element; logits and dlogits at one
 * offset modulo 16 bytes take the 16-byte-load kernels.
 * Workspace: none from the caller. MEAN and SUM use (rows + 2) floats of
 * the context's workspace (sl_ctx-owned, grown once, never allocated in
 * a call that fits it), so calls on one context must not run
 * concurrently on different streams.
 * Kernel (CUDA): on sm_90, rows of whole 16-byte vectors (V a multiple
 * of 8 in bf16 / f16, of 4 in f32) with logits and dlogits 16-byte
 * aligned, up to 8 x 72 KiB a row (2^18 + 2^15 columns in bf16 / f16,
 * 2^17 + 2^14 in f32), are staged in shared memory by bulk copies (a
 * thread block cluster of up to 8 blocks per row), the logits read once
 * and the gradient written once; else rows of up to 2^15 columns are held
 * in registers (a warp, a block or a cluster of up to 8 blocks per row),
 * also read once; longer rows are read twice: in bf16 / f16 by two kernels (the forward's online
 * logsumexp writing lse, then sl_cross_entropy_bwd's kernel from it), in
 * f32 by one block of 128 threads a row (the online logsumexp, then the
 * gradient pass), which measured faster there (docs/ladder.md). MEAN adds
 * a kernel counting
 * the rows not ignored, MEAN and SUM one summing the row losses (in row
 * order: deterministic). Asynchronous on `stream`.
 * Errors: the contract of streamlab.h; smoothing outside [0, 1],
 * target_type or reduction out of range: SL_ERR_INVALID_ARG.
 * Source: issue 33; Milakov and Gimelshein, "Online normalizer calculation
 * for softmax" (arXiv:1805.02867, 2018) for the two-pass kernel's
 * logsumexp; Szegedy et al., "Rethinking the Inception Architecture"
 * (2016), section 7, for label smoothing. */
sl_status sl_cross_entropy_fwd_bwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *logits,
                                   int target_type, const void *targets, int64_t ignore_index,
                                   float smoothing, int reduction, float *loss, float *lse, void *dlogits,
                                   void *stream);

/* sl_cross_entropy_bwd: the gradient of the cross-entropy loss from a
 * saved logsumexp, for callers that did not fuse it into the forward
 * (sl_cross_entropy_fwd, then this in the backward pass): the logits read
 * once more and the gradient written once. For row r with target
 * t = targets[r], smoothing eps and V = cols:
 *   dlogits[r, j] = (exp(x[r, j] - lse[r]) - (1 - eps) [j = t] - eps / V) g_r
 * g_r = dloss[r] for SL_REDUCTION_NONE (dloss: rows floats, the gradient
 * of each row's loss), *dloss for SUM and *dloss / (the rows whose target
 * is not ignore_index) for MEAN (dloss: one float, the gradient of the
 * reduced loss). lse: rows floats, the logsumexp sl_cross_entropy_fwd or
 * sl_cross_entropy_fwd_bwd wrote (any other values are used as given).
 * A row whose target equals ignore_index gets a zero gradient row (its
 * logits are not read); targets, ignore_index, smoothing and reduction
 * mean what they mean in sl_cross_entropy_fwd_bwd, and with the lse of
 * that forward the result is its gradient times the dloss scale.
 *
 * Numerics: f32 per element (bf16 / f16 logits widened exactly):
 * exp(x - lse) on CUDA as ex2.approx(x log2 e - lse log2 e) (one fused
 * multiply-add with lse log2 e rounded once, relative error 2^-22), the
 * CPU's expf(x - lse); then (p - c) g rounded to nearest-even into dtype.
 * The lse is an f32 of the true logsumexp, so p carries its rounding:
 * |lse| 2^-24 relative. Bound (tests/test_xent_cpu, test_gpu_xent, with
 * lse the forward's f32): |got - want| <= ((16 + L + 4 S) 2^-24 |want| +
 * (16 + L) 2^-24 + (2 S + 8) 2^-24 p) |g_r| (plus one ulp of a 16-bit
 * dtype), want the exact gradient, p = exp(x - lse) the element's
 * probability, L = ceil(log2 V) + 1, S = max(1, |lse|, |max_j x|): the
 * last term is the cancellation of p - (1 - eps) at a target with p near
 * 1, which a saved lse cannot avoid (the fused sl_cross_entropy_fwd_bwd
 * divides by the row's sum instead). A NaN lse (a row with a NaN logit) or
 * NaN dloss gives a NaN gradient row.
 *
 * Targets out of range (t < 0 or t >= V, other than ignore_index): on a
 * CPU context, SL_ERR_INVALID_ARG before anything is written; on a CUDA
 * context the row's gradient is NaN (no check before the launch; x[r, t]
 * is never read).
 *
 * dtype: SL_F32, SL_BF16 or SL_F16 for logits and dlogits; dloss and lse
 * f32; target_type an sl_index_type, reduction an sl_reduction. Shapes:
 * logits, dlogits rows x cols, row-major, contiguous; targets and lse
 * rows elements; dloss rows (NONE) or 1 element. rows = 0: nothing is
 * done (dloss, lse may be NULL). cols = 0 with rows > 0:
 * SL_ERR_INVALID_ARG.
 * Aliasing: dlogits == logits (in place) is allowed; any other overlap of
 * dlogits with the logits, targets, dloss or lse is SL_ERR_OVERLAP.
 * Alignment: each array aligned to its element; logits and dlogits at one
 * offset modulo 16 bytes take 16-byte accesses.
 * Workspace: MEAN uses 2 floats of the context's workspace (the count and
 * the scale; calls on one context must not run concurrently on different
 * streams); NONE and SUM none.
 * Kernel (CUDA): a block of 256 threads per row streams it once (16-byte
 * vectors, 4 in flight a thread); MEAN adds a one-block kernel counting
 * the rows not ignored. Asynchronous on `stream`.
 * Errors: the contract of streamlab.h; smoothing outside [0, 1],
 * target_type or reduction out of range: SL_ERR_INVALID_ARG.
 * Source: issue 33 (the backward of sl_cross_entropy_fwd). */
sl_status sl_cross_entropy_bwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *logits,
                               int target_type, const void *targets, int64_t ignore_index, float smoothing,
                               int reduction, const float *dloss, const float *lse, void *dlogits, void *stream);
