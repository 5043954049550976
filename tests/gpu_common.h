/*
 * gpu_common.h - what the GPU tests share: opening the device or skipping,
 * and running one case (a variant, or the public sl_add, on offset or
 * aliased pointers) with its result and its guard elements checked.
 */
#ifndef SL_TEST_GPU_COMMON_H
#define SL_TEST_GPU_COMMON_H

#include "check.h"
#include "internal.h"
#include "registry.h"
#include "rng.h"
#include "verify.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

/* Open CUDA device 0, or print why not and return NULL (the test skips). */
static sl_ctx *gpu_open_or_skip(const char *test)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("%s: SKIPPED: no CUDA device on this machine (run it on the GPU machine: bench/h200.sh)\n", test);
        return NULL;
    }
    sl_ctx *ctx = NULL;
    if (sl_ctx_create(0, &ctx) != SL_OK) {
        printf("%s: SKIPPED: cannot open device 0: %s\n", test, sl_last_error());
        return NULL;
    }
    return ctx;
}

/* A case runs a registry entry, or sl_add() itself when v is NULL. */
static const char *case_name(const sl_variant *v)
{
    return v ? v->name : "sl_add()";
}

static sl_status launch_case(sl_ctx *ctx, const sl_variant *v, size_t n, const float *a, const float *b, float *c)
{
    if (!v)
        return sl_add(ctx, SL_F32, n, a, b, c, ctx->stream);
    sl_args x = {.n = n, .a = a, .b = b, .c = c, .stream = ctx->stream, .dtype = SL_F32};
    return v->launch(&x);
}

/* Count elements of C[lo, hi) that are not the poison pattern. */
static size_t stray_writes(const float *C, size_t lo, size_t hi)
{
    if (hi <= lo)
        return 0;
    uint32_t *h = malloc((hi - lo) * 4);
    size_t stray = 0;
    if (!h || cudaMemcpy(h, C + lo, (hi - lo) * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(h);
        return (size_t)-1;
    }
    for (size_t i = 0; i < hi - lo; i++)
        stray += h[i] != 0xffffffffu;
    free(h);
    return stray;
}

/*
 * One case on buffers A, B, C of `len` elements (A and B filled with seeds
 * sa and sb over their whole length, so a[i] = rand(sa, oa + i)).
 * alias 0: c = C + oc, checked together with the poisoned guards around it.
 * alias 1: c = a; alias 2: c = b (A or B is refilled first and after).
 * Returns 1 if the case passed.
 */
static int run_case(sl_ctx *ctx, const sl_variant *v, float *A, float *B, float *C, size_t len, size_t n, int oa,
                    int ob, int oc, int alias, uint64_t sa, uint64_t sb)
{
    const float *a = A + oa, *b = B + ob;
    float *c = alias == 1 ? A + oa : alias == 2 ? B + ob : C + oc;
    int before = check_failures;
    if (!alias)
        CHECK(ctx->ops->poison(ctx, C, len * 4) == SL_OK, "poison: %s", sl_last_error());
    sl_status st = launch_case(ctx, v, n, a, b, c);
    if (st == SL_OK)
        st = ctx->ops->sync(ctx);
    /* Only the bulk rung may decline, and only below sm_90: an f32 add that
     * says "unsupported" anywhere else took a wrong path. */
    if (st == SL_ERR_UNSUPPORTED && v && strcmp(v->name, "bulk") == 0 && ctx->info.cc_major < 9)
        return 1;
    CHECK(st == SL_OK, "%s n=%zu offsets %d,%d,%d alias %d: %s: %s", case_name(v), n, oa, ob, oc, alias,
          sl_status_string(st), sl_last_error());
    if (st != SL_OK)
        return 0;
    const sl_variant *sem = v ? v : sl_registry_api(SL_OP_ADD, SL_BACKEND_CUDA);
    sl_check chk;
    CHECK(sl_verify(ctx, sem, SL_F32, n, c, sa, (uint64_t)oa, sb, (uint64_t)ob, &chk) == SL_OK, "verify: %s",
          sl_last_error());
    if (chk.mismatches) {
        char detail[800];
        sl_check_format(&chk, detail, sizeof detail);
        CHECK(chk.mismatches == 0, "%s n=%zu offsets %d,%d,%d alias %d: %llu mismatches\n%s", case_name(v), n, oa,
              ob, oc, alias, (unsigned long long)chk.mismatches, detail);
    }
    if (!alias) {
        size_t stray = stray_writes(C, 0, (size_t)oc) + stray_writes(C, (size_t)oc + n, len);
        CHECK(stray == 0, "%s n=%zu offsets %d,%d,%d: %zu writes outside c", case_name(v), n, oa, ob, oc, stray);
    } else {
        /* restore the overwritten input for the next case */
        ctx->ops->fill_random(ctx, SL_F32, alias == 1 ? A : B, len, alias == 1 ? sa : sb);
    }
    return check_failures == before;
}

#endif /* SL_TEST_GPU_COMMON_H */
