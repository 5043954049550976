/*
 * api.c - contexts and the public ops: argument checks, then the registry
 * entry marked `api` for the context's backend.
 */
#include "internal.h"
#include "registry.h"

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
#ifdef SL_HAVE_CUDA
    if (ctx->info.backend == SL_BACKEND_CUDA) {
        int token = -1;
        sl_status st = ctx->ops->bind(ctx, &token);
        sl_cuda_ctx_fini(ctx); /* its stream and events live on its device */
        if (st == SL_OK)
            ctx->ops->unbind(token);
    }
#endif
    if (ctx->info.backend == SL_BACKEND_CPU)
        free(ctx->state);
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

/* [p, p + bytes) and [q, q + bytes) share at least one byte. */
static int ranges_overlap(const void *p, const void *q, size_t bytes)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return a < b + bytes && b < a + bytes;
}

sl_status sl_check_binary_args(const sl_ctx *ctx, const char *fn, const char *names, sl_dtype dt, size_t n,
                               const void *a, const void *b, const void *c)
{
    (void)ctx;
    size_t es = sl_dtype_size(dt);
    if (es == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: dtype %d is not an sl_dtype", fn, (int)dt);
    if (n == 0)
        return SL_OK;
    const void *ptrs[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (!ptrs[i])
            return sl_fail(SL_ERR_INVALID_ARG, "%s: %c is NULL with n = %zu", fn, names[i], n);
    if (n > SIZE_MAX / es)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: n = %zu elements of %zu bytes overflows size_t", fn, n, es);
    for (int i = 0; i < 3; i++)
        if ((uintptr_t)ptrs[i] % es)
            return sl_fail(SL_ERR_MISALIGNED, "%s: %c = %p is not aligned to its %zu-byte %s elements", fn, names[i],
                           ptrs[i], es, sl_dtype_name(dt));
    size_t bytes = n * es;
    for (int i = 0; i < 2; i++)
        if (c != ptrs[i] && ranges_overlap(c, ptrs[i], bytes))
            return sl_fail(SL_ERR_OVERLAP, "%s: %c = %p overlaps %c = %p over %zu bytes without being equal to it", fn,
                           names[2], c, names[i], ptrs[i], bytes);
    return SL_OK;
}

/* Run the registry's api entry for op on the context's backend. */
static sl_status run_api(sl_ctx *ctx, sl_op op, const sl_args *args, const void *const *ptrs, int nptrs)
{
    const sl_variant *v = sl_registry_api(op, ctx->info.backend);
    if (!v)
        return sl_fail(SL_ERR_INTERNAL, "no api entry for %s in the registry for backend %s", sl_op_name(op),
                       ctx->ops->name);
    int token;
    sl_status st = ctx->ops->bind(ctx, &token);
    if (st != SL_OK)
        return st;
    for (int i = 0; i < nptrs && st == SL_OK; i++)
        st = ctx->ops->check_pointer(ctx, ptrs[i]);
    if (st == SL_OK)
        st = v->launch(args);
    ctx->ops->unbind(token);
    return st;
}

sl_status sl_add(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *a, const void *b, void *c, void *stream)
{
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_add: ctx is NULL");
    sl_status st = sl_check_binary_args(ctx, "sl_add", "abc", dtype, n, a, b, c);
    if (st != SL_OK || n == 0)
        return st;
    const void *ptrs[3] = {a, b, c};
    sl_args args = {.n = n, .a = a, .b = b, .c = c, .stream = stream, .dtype = dtype, .op = SL_OP_ADD};
    return run_api(ctx, SL_OP_ADD, &args, ptrs, 3);
}

sl_status sl_axpy(sl_ctx *ctx, sl_dtype dtype, size_t n, float alpha, const void *x, void *y, void *stream)
{
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_axpy: ctx is NULL");
    if (sl_dtype_size(dtype) == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_axpy: dtype %d is not an sl_dtype", (int)dtype);
    if (dtype != SL_F32 && dtype != SL_F16 && dtype != SL_BF16)
        return sl_fail(SL_ERR_UNSUPPORTED, "sl_axpy: dtype %s is not offered (f32, f16 and bf16 are)",
                       sl_dtype_name(dtype));
    /* y is read and written: the checks of c = f(a, b) with a = x, b = c = y. */
    sl_status st = sl_check_binary_args(ctx, "sl_axpy", "xyy", dtype, n, x, y, y);
    if (st != SL_OK || n == 0)
        return st;
    const void *ptrs[2] = {x, y};
    sl_args args = {.n = n, .a = x, .b = y, .c = y, .stream = stream, .dtype = dtype, .op = SL_OP_AXPY,
                    .alpha = alpha};
    return run_api(ctx, SL_OP_AXPY, &args, ptrs, 2);
}
