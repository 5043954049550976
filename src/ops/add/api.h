/* sl_add: c[i] = a[i] + b[i] for i in [0, n), elementwise, computed in
 * fp32 (fp64 for SL_F64) and rounded to nearest-even into dtype (bit-exact
 * IEEE for SL_F32 and SL_F64; saturating for the fp8 types). Every sl_dtype
 * is offered.
 *
 * Shapes and units: a, b and c each hold n elements of `dtype`, contiguous.
 * Alignment: each pointer aligned to the element size; an unaligned head
 * and tail are handled separately, and an input whose offset differs from
 * c's modulo 16 bytes is read with aligned 16-byte loads and realigned
 * (funnel shifts), the stores staying 16-byte aligned (docs/ladder.md,
 * "Issue 17"). The kernel follows the size: see the dispatch table in
 * src/ops/common/ew_cuda.cu.
 * Aliasing: c == a and/or c == b (in place) is allowed; a and b may
 * overlap freely.
 * Memory, stream, errors: the contract above.
 * Source: seed 000 ("A Deeper Dive into Vector Addition"). */
sl_status sl_add(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *a, const void *b, void *c, void *stream);

