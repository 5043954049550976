/*
 * gpu_common.h - what the GPU tests share: opening the device or skipping,
 * and running one add case (a variant, or the public sl_add, in any dtype,
 * on offset or aliased pointers) with its result and its guard elements
 * checked.
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
static inline const char *case_name(const sl_variant *v)
{
    return v ? v->name : "sl_add()";
}

static inline sl_status launch_case(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, size_t n, const void *a, const void *b,
                             void *c)
{
    if (!v)
        return sl_add(ctx, dt, n, a, b, c, ctx->stream);
    sl_args x = {.n = n, .a = a, .b = b, .c = c, .stream = ctx->stream, .dtype = dt, .op = SL_OP_ADD};
    return v->launch(&x);
}

/* Count bytes of C[lo, hi) (bytes) that are not the poison pattern 0xff. */
static inline size_t stray_writes(const void *C, size_t lo, size_t hi)
{
    if (hi <= lo)
        return 0;
    unsigned char *h = malloc(hi - lo);
    size_t stray = 0;
    if (!h || cudaMemcpy(h, (const char *)C + lo, hi - lo, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(h);
        return (size_t)-1;
    }
    for (size_t i = 0; i < hi - lo; i++)
        stray += h[i] != 0xffu;
    free(h);
    return stray;
}

/*
 * One case on buffers A, B, C of `len` elements of dt (A and B filled with
 * seeds sa and sb over their whole length, so a[i] = rand(sa, oa + i)).
 * Offsets are in elements. alias 0: c = C + oc, checked together with the
 * poisoned guards around it. alias 1: c = a; alias 2: c = b (A or B is
 * refilled after). Returns 1 if the case passed.
 */
static inline int run_case(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, void *A, void *B, void *C, size_t len, size_t n,
                    int oa, int ob, int oc, int alias, uint64_t sa, uint64_t sb)
{
    const size_t es = sl_dtype_size(dt);
    const sl_variant *sem = v ? v : sl_registry_api(SL_OP_ADD, SL_BACKEND_CUDA);
    const size_t oes = sl_dtype_size(sl_variant_out_dtype(sem, dt));
    const void *a = (const char *)A + oa * es, *b = (const char *)B + ob * es;
    void *c = alias == 1 ? (char *)A + oa * es : alias == 2 ? (char *)B + ob * es : (char *)C + oc * oes;
    int before = check_failures;
    if (!alias)
        CHECK(ctx->ops->poison(ctx, C, len * oes) == SL_OK, "poison: %s", sl_last_error());
    sl_status st = launch_case(ctx, v, dt, n, a, b, c);
    if (st == SL_OK)
        st = ctx->ops->sync(ctx);
    /* Only the bulk rung may decline, and only below sm_90: a launch that
     * says "unsupported" anywhere else took a wrong path. */
    if (st == SL_ERR_UNSUPPORTED && v && strcmp(v->name, "bulk") == 0 && ctx->info.cc_major < 9)
        return 1;
    CHECK(st == SL_OK, "%s %s n=%zu offsets %d,%d,%d alias %d: %s: %s", case_name(v), sl_dtype_name(dt), n, oa, ob,
          oc, alias, sl_status_string(st), sl_last_error());
    if (st != SL_OK)
        return 0;
    sl_check chk;
    CHECK(sl_verify(ctx, sem, dt, 0.0f, n, c, sa, (uint64_t)oa, sb, (uint64_t)ob, &chk) == SL_OK, "verify: %s",
          sl_last_error());
    if (chk.mismatches) {
        char detail[800];
        sl_check_format(&chk, detail, sizeof detail);
        CHECK(chk.mismatches == 0, "%s %s n=%zu offsets %d,%d,%d alias %d: %llu mismatches\n%s", case_name(v),
              sl_dtype_name(dt), n, oa, ob, oc, alias, (unsigned long long)chk.mismatches, detail);
    }
    if (!alias) {
        size_t stray = stray_writes(C, 0, (size_t)oc * oes) + stray_writes(C, ((size_t)oc + n) * oes, len * oes);
        CHECK(stray == 0, "%s %s n=%zu offsets %d,%d,%d: %zu bytes written outside c", case_name(v), sl_dtype_name(dt),
              n, oa, ob, oc, stray);
    } else {
        /* restore the overwritten input for the next case */
        ctx->ops->fill_random(ctx, dt, alias == 1 ? A : B, len, alias == 1 ? sa : sb);
    }
    return check_failures == before;
}

#endif /* SL_TEST_GPU_COMMON_H */
