/*
 * n > 2^31: every op at n = 2^31 + 5 elements (8 GiB per f32 array), where a
 * 32-bit index would wrap: add's rungs whose index arithmetic differs
 * (naive, grid-stride, vec4, ILP, tile, bulk, fp8out), and every op's
 * naive rung and public entry point, each at offsets 1,1,1 (a 3-element
 * head, then the aligned vector body); the public add also on the
 * scalar path (offsets that differ modulo 16 bytes) and in place. Skips
 * without a GPU or without the memory (STREAMLAB_TEST_SKIP_HUGE skips it
 * too).
 */
#include "gpu_common.h"

#include "sizes.h"

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_huge");
    if (!ctx)
        return SKIP;
    if (getenv("STREAMLAB_TEST_SKIP_HUGE")) {
        printf("test_gpu_huge: SKIPPED: STREAMLAB_TEST_SKIP_HUGE is set\n");
        sl_ctx_destroy(ctx);
        return SKIP;
    }
    const size_t n = ((size_t)1 << 31) + 5, len = n + 16;
    /* three f32 buffers (gpu_bufs sizes them for 8-byte elements: 16 GiB each) */
    size_t need = 3 * len * 8 + ((size_t)1 << 30);
    if (ctx->ops->mem_available(ctx) < need) {
        printf("test_gpu_huge: SKIPPED: needs %zu GiB free on %s\n", need >> 30, ctx->info.name);
        sl_ctx_destroy(ctx);
        return SKIP;
    }
    gpu_bufs g;
    memset(&g, 0, sizeof g);
    g.len = len;
    for (int k = 0; k < 3; k++) {
        g.seed[k] = 0xb16a + (uint64_t)k;
        CHECK(ctx->ops->alloc(ctx, len * 8, &g.mem[k]) == SL_OK, "alloc %d: %s", k, sl_last_error());
    }
    int none[SL_MAX_BUFS] = {-1, -1, -1, -1}, ones[SL_MAX_BUFS] = {1, 1, 1, 1}, zeros[SL_MAX_BUFS] = {0};
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        if (op->nbufs > 3 || op->rank != 1)
            continue; /* a 2-D op has its own GPU test */
        gpu_bufs_fill(ctx, op, &g, SL_F32);
        for (int k = 0; k <= op->nvariants; k++) {
            const sl_variant *v = k < op->nvariants ? &op->variants[k] : NULL;
            /* add: the rungs whose index math differs; every op: naive and the
             * public entry */
            const char *names = op == &sl_op_add ? "naive,grid_stride,vec4,ilp4,tile4,bulk,fp8out" : "naive";
            if (v && (v->backend != SL_BACKEND_CUDA || !v->launch || !sl_variant_supports(op, v, SL_F32) ||
                      !sl_list_has(names, v->name)))
                continue;
            int ok = run_case(ctx, op, v, SL_F32, &g, n, ones, none, NULL);
            printf("  %-8s %-12s n = 2^31 + 5, offsets 1,1,1: %s\n", op->name, case_name(v), ok ? "ok" : "FAILED");
            fflush(stdout);
        }
    }
    int skew[SL_MAX_BUFS] = {3, 2, 0, 0}, in_place[SL_MAX_BUFS] = {-1, -1, 0, -1};
    int ok = run_case(ctx, &sl_op_add, NULL, SL_F32, &g, n, skew, none, NULL);
    printf("  %-8s %-12s n = 2^31 + 5, offsets 3,2,0 (scalar path): %s\n", "add", "public", ok ? "ok" : "FAILED");
    gpu_bufs_fill(ctx, &sl_op_add, &g, SL_F32);
    ok = run_case(ctx, &sl_op_add, NULL, SL_F32, &g, n, zeros, in_place, NULL);
    printf("  %-8s %-12s n = 2^31 + 5, in place c == a: %s\n", "add", "public", ok ? "ok" : "FAILED");
    for (int k = 0; k < 3; k++)
        ctx->ops->free(ctx, g.mem[k]);
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_huge");
}
