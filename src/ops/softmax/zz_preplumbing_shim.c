/*
 * zz_preplumbing_shim.c - TEMPORARY: sl_op_call_shape, the 2-D public
 * entry the lead is adding to src/core/api.c (the "2-D plumbing"), so that
 * sl_softmax links and its tests run before that lands. Deleted at the
 * merge of main; the real one replaces it.
 */
#include "softmax.h"

#include <stdint.h>
#include <stdio.h>

static int overlaps(const void *a, size_t na, const void *b, size_t nb)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
}

sl_status sl_op_call_shape(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, const sl_shape *s, void *const *ptrs,
                           const double *scalars, void *stream)
{
    (void)scalars;
    char fn[32];
    snprintf(fn, sizeof fn, "sl_%s", op->name);
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
    const size_t es = sl_dtype_size(dt);
    if (es == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: dtype %d is not an sl_dtype", fn, (int)dt);
    if (!sl_op_supports(op, dt))
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: dtype %s is not offered", fn, sl_dtype_name(dt));
    if (s->rows == 0 || s->cols == 0)
        return SL_OK;
    if (s->cols > SIZE_MAX / es / s->rows)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %llu x %llu elements overflow size_t", fn,
                       (unsigned long long)s->rows, (unsigned long long)s->cols);
    const size_t bytes = (size_t)sl_shape_span(s) * es;
    for (int k = 0; k < op->nbufs; k++) {
        if (!ptrs[k])
            return sl_fail(SL_ERR_INVALID_ARG, "%s: %s is NULL", fn, op->bufs[k].name);
        if ((uintptr_t)ptrs[k] % es)
            return sl_fail(SL_ERR_MISALIGNED, "%s: %s is not aligned", fn, op->bufs[k].name);
    }
    if (ptrs[0] != ptrs[1] && overlaps(ptrs[0], bytes, ptrs[1], bytes))
        return sl_fail(SL_ERR_OVERLAP, "%s: y overlaps x without being equal to it", fn);
    const sl_variant *v = sl_variant_api(op, ctx->info.backend);
    if (!v || !v->launch)
        return sl_fail(SL_ERR_INTERNAL, "%s: no api variant", fn);
    int token;
    sl_status st = ctx->ops->bind(ctx, &token);
    if (st != SL_OK)
        return st;
    for (int k = 0; k < op->nbufs && st == SL_OK; k++)
        st = ctx->ops->check_pointer(ctx, ptrs[k]);
    sl_args args = {.op = op, .shape = *s, .n = (size_t)(s->rows * s->cols), .dtype = dt, .out_dtype = dt,
                    .stream = stream};
    args.buf[0] = ptrs[0];
    args.buf[1] = ptrs[1];
    if (st == SL_OK)
        st = v->launch(&args);
    ctx->ops->unbind(token);
    return st;
}
