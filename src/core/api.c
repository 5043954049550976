/*
 * api.c - contexts, and the one entry point every public op goes through:
 * argument checks read off the op's descriptor, then the op's variant
 * marked `api` for the context's backend.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sl_status sl_ctx_create(int device, sl_ctx **out)
{
    if (!out)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_ctx_create: out is NULL");
    *out = NULL;
    if (device < SL_DEVICE_AUTO)
        return sl_fail(SL_ERR_BAD_DEVICE, "sl_ctx_create: device %d is not a CUDA index, SL_DEVICE_CPU or SL_DEVICE_AUTO",
                       device);
    sl_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return sl_fail(SL_ERR_NO_MEMORY, "sl_ctx_create: out of host memory");
    ctx->pointer_checks = SL_POINTER_CHECKS_FIRST_USE;
    sl_status st;
#ifdef SL_HAVE_CUDA
    int count = 0;
    int auto_pick = device == SL_DEVICE_AUTO;
    if (auto_pick) {
        char why[200] = "no CUDA device";
        sl_cuda_device_count(&count, why, sizeof why);
        device = count > 0 ? 0 : SL_DEVICE_CPU;
        if (count == 0)
            snprintf(ctx->fallback_reason, sizeof ctx->fallback_reason, "%s", why);
    }
    if (device >= 0) {
        st = sl_cuda_ctx_init(ctx, device);
        if (st != SL_OK && auto_pick && st != SL_ERR_CUDA_FAULT) {
            /* A GPU is there but cannot be opened (exclusive mode, no
             * memory): AUTO promises the CPU then, with the reason. */
            snprintf(ctx->fallback_reason, sizeof ctx->fallback_reason, "device 0 cannot be opened: %s",
                     sl_last_error());
            sl_cuda_ctx_fini(ctx);
            memset(&ctx->info, 0, sizeof ctx->info);
            st = sl_cpu_ctx_init(ctx);
        }
    } else {
        st = sl_cpu_ctx_init(ctx);
    }
#else
    if (device >= 0) {
        st = sl_fail(SL_ERR_NO_DEVICE, "device %d asked for, but this streamlab was built without CUDA (CPU only)",
                     device);
    } else {
        if (device == SL_DEVICE_AUTO)
            snprintf(ctx->fallback_reason, sizeof ctx->fallback_reason, "built without CUDA");
        st = sl_cpu_ctx_init(ctx);
    }
#endif
    if (st != SL_OK) {
        sl_ctx_destroy(ctx);
        return st;
    }
    *out = ctx;
    return SL_OK;
}

void sl_ctx_destroy(sl_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->ops) {
        int token = -1;
        sl_status st = ctx->ops->bind(ctx, &token);
        ctx->ops->fini(ctx); /* a CUDA context's stream and events live on its device */
        if (st == SL_OK)
            ctx->ops->unbind(token);
    }
    free(ctx);
}

sl_status sl_ctx_info(const sl_ctx *ctx, sl_device_info *out)
{
    if (!ctx || !out)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_ctx_info: NULL %s", ctx ? "out" : "ctx");
    int token;
    if (ctx->ops && ctx->ops->refresh_info && ctx->ops->bind(ctx, &token) == SL_OK) {
        ctx->ops->refresh_info((sl_ctx *)ctx);
        ctx->ops->unbind(token);
    }
    *out = ctx->info;
    return SL_OK;
}

/* [p, p + pb) and [q, q + qb) share at least one byte. */
static int ranges_overlap(const void *p, size_t pb, const void *q, size_t qb)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return pb && qb && a < b + qb && b < a + pb;
}

static const char *op_fn_name(const sl_op_desc *op, char *buf)
{
    if (op->api)
        return op->api;
    snprintf(buf, 32, "sl_%s", op->name);
    return buf;
}

static void ptr_memo_clear(sl_ctx *ctx)
{
    for (int i = 0; i < SL_PTR_MEMO; i++)
        __atomic_store_n(&ctx->ptr_memo[i], NULL, __ATOMIC_RELAXED);
}

sl_status sl_ctx_set_pointer_checks(sl_ctx *ctx, sl_pointer_checks mode)
{
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_ctx_set_pointer_checks: ctx is NULL");
    if (mode != SL_POINTER_CHECKS_OFF && mode != SL_POINTER_CHECKS_EVERY_CALL && mode != SL_POINTER_CHECKS_FIRST_USE)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_ctx_set_pointer_checks: mode %d is not an sl_pointer_checks", (int)mode);
    __atomic_store_n(&ctx->pointer_checks, (int)mode, __ATOMIC_RELAXED);
    ptr_memo_clear(ctx);
    return SL_OK;
}

/* The context's pointer check of p, in its mode (see streamlab.h). */
static sl_status check_pointer(sl_ctx *ctx, const void *p)
{
    const int mode = __atomic_load_n(&ctx->pointer_checks, __ATOMIC_RELAXED);
    if (mode == SL_POINTER_CHECKS_OFF)
        return SL_OK;
    const int memo = mode == SL_POINTER_CHECKS_FIRST_USE;
    if (memo)
        for (int i = 0; i < SL_PTR_MEMO; i++)
            if (__atomic_load_n(&ctx->ptr_memo[i], __ATOMIC_RELAXED) == p)
                return SL_OK;
    sl_status st = ctx->ops->check_pointer(ctx, p);
    if (st == SL_OK && memo) {
        unsigned slot = __atomic_fetch_add(&ctx->ptr_memo_next, 1u, __ATOMIC_RELAXED) % SL_PTR_MEMO;
        __atomic_store_n(&ctx->ptr_memo[slot], p, __ATOMIC_RELAXED);
    }
    return st;
}

sl_status sl_op_call_shape(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, const sl_shape *shape,
                           void *const *ptrs, const double *scalars, void *stream)
{
    return sl_op_call_opts(ctx, op, dt, shape, ptrs, scalars, NULL, stream);
}

sl_status sl_op_call_opts(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, const sl_shape *shape,
                          void *const *ptrs, const double *scalars, const sl_call_opts *opts, void *stream)
{
    /* The name for messages, built only on an error path: the success path
     * makes no formatted output (issue 17: per-call host cost). */
#define fn op_fn_name(op, fnbuf)
    char fnbuf[32];
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
    const size_t es_op = sl_dtype_size(dt);
    if (es_op == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: dtype %d is not an sl_dtype", fn, (int)dt);
    if (!sl_op_supports(op, dt)) {
        char list[96];
        sl_op_dtype_list(op, list, sizeof list);
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: dtype %s is not offered (%s are)", fn, sl_dtype_name(dt), list);
    }
    if (!shape)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: shape is NULL", fn);
    const uint64_t n64 = sl_shape_elems(shape);
    if (shape->rows && n64 / shape->rows != shape->cols)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %llu x %llu elements overflow 64 bits", fn,
                       (unsigned long long)shape->rows, (unsigned long long)shape->cols);
    if (n64 > SIZE_MAX)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %llu elements overflow size_t", fn, (unsigned long long)n64);
    if (shape->ld < shape->cols && shape->rows > 1)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: ld = %llu is less than cols = %llu", fn,
                       (unsigned long long)shape->ld, (unsigned long long)shape->cols);
    const size_t n = (size_t)n64;
    /* n = 0 is a no-op, except that a reduction still writes its result. */
    bool scalar_out = false;
    for (int k = 0; k < op->nbufs; k++)
        scalar_out |= op->bufs[k].scalar && sl_role_written(op->bufs[k].role);
    if (n == 0 && !scalar_out)
        return SL_OK;
    /* The order of the checks is the contract's (streamlab.h, "Errors"):
     * ctx, dtype, shape, then NULL pointers, misaligned pointers, overlap,
     * pointers the context cannot use; each in argument order. */
    size_t bytes[SL_MAX_BUFS], esize[SL_MAX_BUFS];
    for (int k = 0; k < op->nbufs; k++) {
        const sl_buf_desc *b = &op->bufs[k];
        const uint64_t elems = n ? sl_op_buf_elems(op, k, shape) : 0;
        size_t bes = sl_dtype_size(sl_op_buf_dtype(op, k, dt, dt)); /* 4 for F32 / INDEX buffers */
        if (opts && ((opts->f32_bufs >> k) & 1u))
            bes = 4; /* f32 by the caller's choice (a norm's weight) */
        esize[k] = bes;
        if (elems > SIZE_MAX / bes)
            return sl_fail(SL_ERR_INVALID_ARG, "%s: %s's %llu elements of %zu bytes overflow size_t", fn, b->name,
                           (unsigned long long)elems, bes);
        bytes[k] = b->scalar ? bes : (size_t)elems * bes;
    }
    for (int k = 0; k < op->nbufs; k++) /* an empty array: any pointer, NULL included */
        if (bytes[k] && !ptrs[k])
            return sl_fail(SL_ERR_INVALID_ARG, "%s: %s is NULL with %zu elements", fn, op->bufs[k].name, n);
    for (int k = 0; k < op->nbufs; k++) {
        /* each buffer's own element: the op's dtype, or 4 bytes for f32 and
         * index buffers (op.h, sl_buf_kind) */
        const size_t bes = esize[k];
        if (bytes[k] && (uintptr_t)ptrs[k] % bes)
            return sl_fail(SL_ERR_MISALIGNED, "%s: %s = %p is not aligned to its %zu-byte %s elements", fn,
                           op->bufs[k].name, ptrs[k], bes,
                           op->bufs[k].kind == SL_BUF_INDEX ? "index" : bes == 4 && es_op != 4 ? "f32" : sl_dtype_name(dt));
    }
    /* A written buffer may be exactly another buffer (in place); any other
     * overlap with it would let one element's store change another's load. */
    for (int k = 0; k < op->nbufs; k++) {
        if (!sl_role_written(op->bufs[k].role))
            continue;
        for (int j = 0; j < op->nbufs; j++) {
            if (j == k || !ranges_overlap(ptrs[k], bytes[k], ptrs[j], bytes[j]))
                continue;
            if (ptrs[k] == ptrs[j] && bytes[k] == bytes[j] && !op->no_inplace)
                continue;
            if (ptrs[k] == ptrs[j] && op->no_inplace)
                return sl_fail(SL_ERR_OVERLAP, "%s: %s = %s = %p: in place is not supported; give %s its own buffer",
                               fn, op->bufs[k].name, op->bufs[j].name, ptrs[k], op->bufs[k].name);
            return sl_fail(SL_ERR_OVERLAP, "%s: %s = %p (%zu bytes) overlaps %s = %p (%zu bytes) without being equal to it",
                           fn, op->bufs[k].name, ptrs[k], bytes[k], op->bufs[j].name, ptrs[j], bytes[j]);
        }
    }
    /* The caller's scratch (a norm backward's partials) is written too: it may
     * overlap no buffer of the call. */
    if (opts && opts->workspace && opts->workspace_bytes)
        for (int j = 0; j < op->nbufs; j++)
            if (ranges_overlap(opts->workspace, opts->workspace_bytes, ptrs[j], bytes[j]))
                return sl_fail(SL_ERR_OVERLAP, "%s: workspace = %p (%zu bytes) overlaps %s = %p (%zu bytes): the "
                               "scratch needs its own buffer", fn, opts->workspace, opts->workspace_bytes,
                               op->bufs[j].name, ptrs[j], bytes[j]);
    const sl_variant *v = sl_variant_api(op, ctx->info.backend);
    if (!v || !v->launch)
        return sl_fail(SL_ERR_INTERNAL, "%s: no api variant for backend %s", fn, ctx->ops->name);
    int token;
    sl_status st = ctx->ops->bind(ctx, &token);
    if (st != SL_OK)
        return st;
    for (int k = 0; k < op->nbufs && st == SL_OK; k++)
        if (bytes[k])
            st = check_pointer(ctx, ptrs[k]);
    sl_args args = {.op = op, .shape = *shape, .n = n, .dtype = dt, .out_dtype = dt, .stream = stream};
    for (int k = 0; k < op->nbufs; k++)
        args.buf[k] = ptrs[k];
    for (int k = 0; k < op->nscalars; k++)
        args.scalar[k] = scalars ? scalars[k] : op->scalars[k].dflt;
    if (opts)
        args.f32_bufs = opts->f32_bufs;
    if (st == SL_OK && (v->workspace || v->workspace_shape)) {
        args.workspace_bytes = sl_variant_workspace(v, dt, shape);
        if (opts && opts->workspace) {
            /* the caller's scratch (graph capture: no allocation here) */
            if (opts->workspace_bytes < args.workspace_bytes)
                st = sl_fail(SL_ERR_INVALID_ARG, "%s: workspace of %zu bytes, %zu needed (ask the size query)", fn,
                             opts->workspace_bytes, args.workspace_bytes);
            args.workspace = opts->workspace;
        } else {
            st = ctx->ops->workspace(ctx, args.workspace_bytes, &args.workspace);
        }
    }
    if (st == SL_OK)
        st = v->launch(&args);
    ctx->ops->unbind(token);
    return st;
#undef fn
}

sl_status sl_op_call(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, size_t n, void *const *ptrs,
                     const double *scalars, void *stream)
{
    const sl_shape s = sl_shape_1d(n);
    return sl_op_call_shape(ctx, op, dt, &s, ptrs, scalars, stream);
}
