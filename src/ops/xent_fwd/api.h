/* sl_cross_entropy_fwd: sl_cross_entropy_fwd_bwd without the gradient:
 * the losses (or their MEAN / SUM) and the per-row logsumexp lse, the
 * logits only read (a read-only op: one read of rows x cols elements,
 * rows targets, rows or 1 plus rows floats written). Arguments, numerics,
 * targets out of range, shapes, aliasing (loss and lse must not overlap
 * the logits, the targets or each other), workspace and errors: as
 * sl_cross_entropy_fwd_bwd (src/ops/xent/api.h). Kernel (CUDA): one block
 * per row streams it once with the online logsumexp (16-byte loads, any
 * row length); no register limit on the row. */
sl_status sl_cross_entropy_fwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *logits,
                               int target_type, const void *targets, int64_t ignore_index, float smoothing,
                               int reduction, float *loss, float *lse, void *stream);
