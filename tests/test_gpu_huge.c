/*
 * n > 2^31: every CUDA variant and sl_add() on 2^31 + 5 elements (8 GiB
 * per array), where a 32-bit index would wrap. Also in place through
 * sl_add(). Skips without a GPU or without 3 x 8 GiB of free memory.
 */
#include "gpu_common.h"

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_huge");
    if (!ctx)
        return SKIP;
    const size_t n = ((size_t)1 << 31) + 5, len = n + 8;
    size_t need = 3 * len * 4 + ((size_t)1 << 30);
    if (ctx->ops->mem_available(ctx) < need) {
        printf("test_gpu_huge: SKIPPED: needs %zu GiB free on %s\n", need >> 30, ctx->info.name);
        sl_ctx_destroy(ctx);
        return SKIP;
    }
    float *A, *B, *C;
    CHECK(ctx->ops->alloc(ctx, len * 4, (void **)&A) == SL_OK, "alloc A: %s", sl_last_error());
    CHECK(ctx->ops->alloc(ctx, len * 4, (void **)&B) == SL_OK, "alloc B: %s", sl_last_error());
    CHECK(ctx->ops->alloc(ctx, len * 4, (void **)&C) == SL_OK, "alloc C: %s", sl_last_error());
    const uint64_t sa = 0xb16a, sb = 0xb16b;
    ctx->ops->fill_random(ctx, SL_F32, A, len, sa);
    ctx->ops->fill_random(ctx, SL_F32, B, len, sb);
    for (size_t i = 0; i <= sl_registry_count(); i++) {
        const sl_variant *v = i < sl_registry_count() ? sl_registry_at(i) : NULL;
        if (v && (v->backend != SL_BACKEND_CUDA || v->op != SL_OP_ADD))
            continue;
        /* offsets 1,1,1: a 3-element head, then the aligned vector body */
        int ok = run_case(ctx, v, SL_F32, A, B, C, len, n, 1, 1, 1, 0, sa, sb);
        printf("  %-12s n = 2^31 + 5, offsets 1,1,1: %s\n", case_name(v), ok ? "ok" : "FAILED");
        fflush(stdout);
    }
    int ok = run_case(ctx, NULL, SL_F32, A, B, C, len, n, 3, 2, 0, 0, sa, sb);
    printf("  %-12s n = 2^31 + 5, offsets 3,2,0 (scalar path): %s\n", "sl_add()", ok ? "ok" : "FAILED");
    ok = run_case(ctx, NULL, SL_F32, A, B, C, len, n, 0, 0, 0, 1, sa, sb);
    printf("  %-12s n = 2^31 + 5, in place c == a: %s\n", "sl_add()", ok ? "ok" : "FAILED");
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    ctx->ops->free(ctx, C);
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_huge");
}
