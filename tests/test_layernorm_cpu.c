/*
 * test_layernorm_cpu.c - layernorm and its backward on the CPU backend (CI):
 * the CPU rungs and sl_layernorm_fwd / sl_layernorm_bwd against the fp64
 * oracle and finite differences of layernorm_check.h, in every dtype, at odd
 * shapes, misaligned, in place, on rows of zeros, huge values and NaN, and
 * the public functions' errors.
 */
#include "layernorm_check.h"

#include <stdio.h>

static void *h_alloc(size_t bytes)
{
    return aligned_alloc(256, (bytes + 255) / 256 * 256);
}

static void h_release(void *p)
{
    free(p);
}

static int h_sync(void)
{
    return 0;
}

int main(void)
{
    static const nmem m = {h_alloc, h_release, h_sync};
    nm = &m;
    sl_ctx *ctx = NULL;
    if (sl_ctx_create(SL_DEVICE_CPU, &ctx) != SL_OK) {
        fprintf(stderr, "test_layernorm_cpu: no CPU context: %s\n", sl_last_error());
        return 1;
    }
    const int rc = ln_main(ctx, SL_BACKEND_CPU, 0, "test_layernorm_cpu");
    sl_ctx_destroy(ctx);
    return rc;
}
