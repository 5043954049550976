/*
 * verify.c - see verify.h.
 */
#include "verify.h"

#include "../cpu/cpu.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 22)

static void gen_f32(float *dst, size_t n, uint64_t seed, uint64_t first)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        dst[i] = sl_rand_f32(seed, first + i);
}

sl_status sl_verify(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, size_t n, const void *c, uint64_t seed_a,
                    uint64_t first_a, uint64_t seed_b, uint64_t first_b, sl_check *out)
{
    memset(out, 0, sizeof *out);
    if (dt != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "verify: dtype %s not implemented", sl_dtype_name(dt));
    size_t chunk = n < CHUNK ? n : CHUNK;
    float *a = malloc(chunk * sizeof *a), *b = malloc(chunk * sizeof *b);
    float *want = malloc(chunk * sizeof *want), *got = malloc(chunk * sizeof *got);
    sl_status st = SL_OK;
    if (n && (!a || !b || !want || !got)) {
        st = sl_fail(SL_ERR_NO_MEMORY, "verify: out of host memory for %zu-element chunks", chunk);
        goto done;
    }
    const int copy = v->kind == SL_KIND_CEILING;
    for (size_t lo = 0; lo < n; lo += chunk) {
        size_t m = n - lo < chunk ? n - lo : chunk;
        st = ctx->ops->download(ctx, got, (const float *)c + lo, m * sizeof(float));
        if (st != SL_OK)
            goto done;
        gen_f32(a, m, seed_a, first_a + lo);
        if (copy) {
            memcpy(want, a, m * sizeof *want);
        } else {
            gen_f32(b, m, seed_b, first_b + lo);
            /* The reference itself runs on per-thread slices: the oracle is
             * the same serial loop, just not serial across the chunk. */
#pragma omp parallel
            {
                size_t s_lo, s_hi;
                sl_cpu_share(m * sizeof(float), &s_lo, &s_hi);
                s_lo /= sizeof(float);
                s_hi /= sizeof(float);
                sl_ref_add_f32(s_hi - s_lo, a + s_lo, b + s_lo, want + s_lo);
            }
        }
        uint64_t bad = 0;
        const uint32_t *g = (const uint32_t *)got, *w = (const uint32_t *)want;
#pragma omp parallel for reduction(+ : bad) schedule(static)
        for (size_t i = 0; i < m; i++)
            bad += g[i] != w[i];
        if (bad) {
            for (size_t i = 0; i < m && out->shown < SL_VERIFY_SHOW; i++) {
                if (g[i] != w[i]) {
                    out->first[out->shown].index = lo + i;
                    out->first[out->shown].got = g[i];
                    out->first[out->shown].want = w[i];
                    out->shown++;
                }
            }
            out->mismatches += bad;
        }
    }
done:
    free(a);
    free(b);
    free(want);
    free(got);
    return st;
}

void sl_check_format(const sl_check *chk, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < chk->shown && used < len; i++) {
        float g, w;
        memcpy(&g, &chk->first[i].got, sizeof g);
        memcpy(&w, &chk->first[i].want, sizeof w);
        int k = snprintf(buf + used, len - used, "  c[%llu] = %a (0x%08x), want %a (0x%08x)\n",
                         (unsigned long long)chk->first[i].index, g, chk->first[i].got, w, chk->first[i].want);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}
