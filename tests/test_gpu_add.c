/*
 * Every CUDA variant of the add ladder, and the public sl_add(), for
 * n in {1, 3, 1023, 2^20 + 3, 1000003 (prime)} and element offsets 0..7 of
 * a, b and c, in place too, bit-exact against the CPU reference, with the
 * elements around c checked for stray writes. Also: the device generator
 * equals the host one, and sl_add's argument errors on the GPU.
 * Skips (exit 77) without a GPU. Run under compute-sanitizer by bench/h200.sh.
 */
#include "gpu_common.h"

#define MAXN ((size_t)(1u << 20) + 3)
#define LEN (MAXN + 8)

static void test_generator(sl_ctx *ctx, float *A)
{
    size_t n = 1u << 20;
    CHECK(ctx->ops->fill_random(ctx, SL_F32, A, n, 99) == SL_OK, "fill: %s", sl_last_error());
    uint32_t *h = malloc(n * 4);
    CHECK(ctx->ops->download(ctx, h, A, n * 4) == SL_OK, "download");
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += h[i] != sl_rand_f32_bits(99, i);
    CHECK(bad == 0, "device generator differs from the host one in %zu of %zu elements", bad, n);
    free(h);
}

static void test_errors(sl_ctx *ctx, float *A, float *B, float *C)
{
    float host[16] = {0};
    CHECK(sl_add(ctx, SL_F32, 16, host, B, C, NULL) == SL_ERR_BAD_POINTER, "host a: %s", sl_last_error());
    CHECK(sl_add(ctx, SL_F32, 16, A, B, host, NULL) == SL_ERR_BAD_POINTER, "host c: %s", sl_last_error());
    CHECK(sl_add(ctx, SL_F32, 16, (char *)A + 2, B, C, NULL) == SL_ERR_MISALIGNED, "a + 2 bytes");
    CHECK(sl_add(ctx, SL_F32, 16, A, B, A + 3, NULL) == SL_ERR_OVERLAP, "c overlaps a");
    CHECK(sl_add(ctx, SL_F32, 0, NULL, NULL, NULL, NULL) == SL_OK, "n = 0");
    CHECK(sl_add(ctx, SL_FP8_E4M3, 16, A, B, C, NULL) == SL_ERR_UNSUPPORTED, "fp8 not yet");
    CHECK(cudaGetLastError() == cudaSuccess, "an argument error left a CUDA error behind");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "context still usable after argument errors");
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_add");
    if (!ctx)
        return SKIP;
    printf("test_gpu_add: %s\n", ctx->info.name);
    float *A, *B, *C;
    CHECK(ctx->ops->alloc(ctx, LEN * 4, (void **)&A) == SL_OK, "alloc");
    CHECK(ctx->ops->alloc(ctx, LEN * 4, (void **)&B) == SL_OK, "alloc");
    CHECK(ctx->ops->alloc(ctx, LEN * 4, (void **)&C) == SL_OK, "alloc");
    test_generator(ctx, A);
    test_errors(ctx, A, B, C);

    const uint64_t sa = 0x5eed0001, sb = 0x5eed0002;
    ctx->ops->fill_random(ctx, SL_F32, A, LEN, sa);
    ctx->ops->fill_random(ctx, SL_F32, B, LEN, sb);
    const size_t sizes[] = {1, 3, 1023, MAXN, 1000003};
    /* Entries to test: every CUDA registry entry, then sl_add() itself (NULL). */
    const sl_variant *cases[64];
    int ncases = 0;
    for (size_t i = 0; i < sl_registry_count(); i++)
        if (sl_registry_at(i)->backend == SL_BACKEND_CUDA)
            cases[ncases++] = sl_registry_at(i);
    cases[ncases++] = NULL;

    for (int k = 0; k < ncases; k++) {
        const sl_variant *v = cases[k];
        int failed_before = check_failures, ran = 0;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            int full = n < 5000; /* all 8^3 offset triples; else each pointer alone, and all equal */
            for (int oa = 0; oa < 8; oa++)
                for (int ob = 0; ob < 8; ob++)
                    for (int oc = 0; oc < 8; oc++) {
                        int nonzero = (oa > 0) + (ob > 0) + (oc > 0);
                        if (!full && nonzero > 1 && !(oa == ob && ob == oc))
                            continue;
                        ran++;
                        if (!run_case(ctx, v, A, B, C, LEN, n, oa, ob, oc, 0, sa, sb))
                            goto next_variant; /* one report per variant is enough */
                    }
            if (v && v->kind == SL_KIND_CEILING)
                continue; /* a copy onto itself is not a case */
            for (int o = 0; o < 8; o++) {
                ran += 2;
                if (!run_case(ctx, v, A, B, C, LEN, n, o, (o * 3) % 8, 0, 1, sa, sb) ||
                    !run_case(ctx, v, A, B, C, LEN, n, (o * 5) % 8, o, 0, 2, sa, sb))
                    goto next_variant;
            }
        }
    next_variant:
        printf("  %-12s %s (%d cases)\n", case_name(v), check_failures == failed_before ? "ok" : "FAILED", ran);
        fflush(stdout);
    }
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    ctx->ops->free(ctx, C);
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_add");
}
