/*
 * Every CUDA variant of the add ladder, and the public sl_add(), in every
 * dtype it runs (f32, f16, bf16, fp8 e4m3 / e5m2), for n in {1, 3, 1023,
 * 2^20 + 3, 1000003 (prime)} and element offsets 0..7 of a, b and c, in
 * place too, bit-exact against the CPU reference, with the bytes around c
 * checked for stray writes. Also: the device generator equals the host one
 * in every dtype, and sl_add's argument errors on the GPU.
 * Skips (exit 77) without a GPU. Run under compute-sanitizer by bench/h200.sh.
 */
#include "gpu_common.h"

#define MAXN ((size_t)(1u << 20) + 3)
#define LEN (MAXN + 8)

/* The device generator writes, in every dtype, exactly what the host
 * regenerates (device conversions == src/core/dtype_conv.c). */
static void test_generator(sl_ctx *ctx, void *A)
{
    size_t n = 1u << 20;
    unsigned char *h = malloc(n * 4), *w = malloc(n * 4);
    for (int d = 0; d < SL_DTYPE_COUNT; d++) {
        size_t es = sl_dtype_size((sl_dtype)d);
        CHECK(ctx->ops->fill_random(ctx, (sl_dtype)d, A, n, 99) == SL_OK, "fill: %s", sl_last_error());
        CHECK(ctx->ops->download(ctx, h, A, n * es) == SL_OK, "download");
        sl_rand_fill((sl_dtype)d, w, n, 99, 0);
        size_t bad = 0;
        for (size_t i = 0; i < n * es; i++)
            bad += h[i] != w[i];
        CHECK(bad == 0, "%s: device generator differs from the host one in %zu of %zu bytes",
              sl_dtype_name((sl_dtype)d), bad, n * es);
    }
    free(h);
    free(w);
}

static void test_errors(sl_ctx *ctx, float *A, float *B, float *C)
{
    float host[16] = {0};
    CHECK(sl_add(ctx, SL_F32, 16, host, B, C, NULL) == SL_ERR_BAD_POINTER, "host a: %s", sl_last_error());
    CHECK(sl_add(ctx, SL_F32, 16, A, B, host, NULL) == SL_ERR_BAD_POINTER, "host c: %s", sl_last_error());
    CHECK(sl_add(ctx, SL_F32, 16, (char *)A + 2, B, C, NULL) == SL_ERR_MISALIGNED, "a + 2 bytes");
    CHECK(sl_add(ctx, SL_BF16, 16, (char *)A + 1, B, C, NULL) == SL_ERR_MISALIGNED, "bf16 a + 1 byte");
    CHECK(sl_add(ctx, SL_F32, 16, A, B, A + 3, NULL) == SL_ERR_OVERLAP, "c overlaps a");
    CHECK(sl_add(ctx, SL_F32, 0, NULL, NULL, NULL, NULL) == SL_OK, "n = 0");
    CHECK(sl_add(ctx, (sl_dtype)17, 16, A, B, C, NULL) == SL_ERR_INVALID_ARG, "bad dtype");
    CHECK(cudaGetLastError() == cudaSuccess, "an argument error left a CUDA error behind");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "context still usable after argument errors");
}

/* Every case of one variant (NULL: sl_add) in one dtype. full: all 8^3
 * offset triples below n = 5000 (f32); otherwise each pointer offset alone
 * and all three equal. */
static void test_variant(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, void *A, void *B, void *C, int full_offsets)
{
    const uint64_t sa = 0x5eed0001, sb = 0x5eed0002;
    /* STREAMLAB_TEST_QUICK (bench/h200.sh sets it under compute-sanitizer,
     * which runs ~20x slower): two sizes, no full offset grid. */
    const int quick = getenv("STREAMLAB_TEST_QUICK") != NULL;
    const size_t all_sizes[] = {1, 3, 1023, MAXN, 1000003}, quick_sizes[] = {3, 1000003};
    const size_t *sizes = quick ? quick_sizes : all_sizes;
    const size_t nsizes = quick ? 2 : 5;
    int failed_before = check_failures, ran = 0;
    ctx->ops->fill_random(ctx, dt, A, LEN, sa);
    ctx->ops->fill_random(ctx, dt, B, LEN, sb);
    for (size_t s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        int full = full_offsets && !quick && n < 5000;
        for (int oa = 0; oa < 8; oa++)
            for (int ob = 0; ob < 8; ob++)
                for (int oc = 0; oc < 8; oc++) {
                    int nonzero = (oa > 0) + (ob > 0) + (oc > 0);
                    if (!full && nonzero > 1 && !(oa == ob && ob == oc))
                        continue;
                    ran++;
                    if (!run_case(ctx, v, dt, A, B, C, LEN, n, oa, ob, oc, 0, sa, sb))
                        goto done; /* one report per variant is enough */
                }
        if ((v && v->kind == SL_KIND_CEILING) || (v && v->out_fp8))
            continue; /* a copy onto itself is not a case; fp8out cannot write in place */
        for (int o = 0; o < 8; o++) {
            ran += 2;
            if (!run_case(ctx, v, dt, A, B, C, LEN, n, o, (o * 3) % 8, 0, 1, sa, sb) ||
                !run_case(ctx, v, dt, A, B, C, LEN, n, (o * 5) % 8, o, 0, 2, sa, sb))
                goto done;
        }
    }
done:
    printf("  %-12s %-8s %s (%d cases)\n", case_name(v), sl_dtype_name(dt),
           check_failures == failed_before ? "ok" : "FAILED", ran);
    fflush(stdout);
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

    /* Entries to test: every CUDA add entry, then sl_add() itself (NULL),
     * in every dtype each runs; f32 with the full offset grid. */
    const sl_variant *cases[64];
    int ncases = 0;
    for (size_t i = 0; i < sl_registry_count(); i++)
        if (sl_registry_at(i)->backend == SL_BACKEND_CUDA && sl_registry_at(i)->op == SL_OP_ADD)
            cases[ncases++] = sl_registry_at(i);
    cases[ncases++] = NULL;
    for (int d = 0; d < SL_DTYPE_COUNT; d++)
        for (int k = 0; k < ncases; k++)
            if (!cases[k] || sl_variant_supports(cases[k], (sl_dtype)d))
                test_variant(ctx, cases[k], (sl_dtype)d, A, B, C, d == SL_F32);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    ctx->ops->free(ctx, C);
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_add");
}
