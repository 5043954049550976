/*
 * verify.c - see verify.h.
 */
#include "verify.h"

#include "../cpu/cpu.h"
#include "dtype_conv.h"
#include "rng.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 22)

void sl_rand_fill(sl_dtype dt, void *dst, size_t n, uint64_t seed, uint64_t first)
{
    if (dt == SL_F32) {
        uint32_t *u = dst;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            u[i] = sl_rand_f32_bits(seed, first + i);
        return;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        sl_dtype_store(dt, dst, i, sl_rand_f32(seed, first + i));
}

/* Element i of a raw array of es-byte elements, zero-extended. */
static uint32_t raw_at(const unsigned char *p, size_t es, size_t i)
{
    switch (es) {
    case 1: return p[i];
    case 2: {
        uint16_t v;
        memcpy(&v, p + 2 * i, 2);
        return v;
    }
    default: {
        uint32_t v;
        memcpy(&v, p + 4 * i, 4);
        return v;
    }
    }
}

/* got == want, or within tol ulps of want in dtype dt (*inexact counts those). */
static int same(sl_dtype dt, uint32_t got, uint32_t want, const void *g, const void *w, size_t i, int tol,
                uint64_t *inexact)
{
    if (got == want)
        return 1;
    if (tol <= 0)
        return 0;
    float fg = sl_dtype_load(dt, g, i), fw = sl_dtype_load(dt, w, i);
    if (fg != fg || fw != fw)
        return 0;
    if (fabs((double)fg - (double)fw) <= tol * sl_dtype_ulp(dt, fw)) {
        (*inexact)++;
        return 1;
    }
    return 0;
}

sl_status sl_verify(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, float alpha, size_t n, const void *c,
                    uint64_t seed_a, uint64_t first_a, uint64_t seed_b, uint64_t first_b, sl_check *out)
{
    memset(out, 0, sizeof *out);
    const sl_dtype odt = sl_variant_out_dtype(v, dt);
    const size_t es = sl_dtype_size(dt), oes = sl_dtype_size(odt);
    out->dtype = odt;
    if (!es)
        return sl_fail(SL_ERR_INVALID_ARG, "verify: dtype %d is not an sl_dtype", (int)dt);
    size_t chunk = n < CHUNK ? n : CHUNK;
    unsigned char *a = malloc(chunk * es), *b = malloc(chunk * es);
    unsigned char *want = malloc(chunk * oes), *got = malloc(chunk * oes);
    sl_status st = SL_OK;
    if (n && (!a || !b || !want || !got)) {
        st = sl_fail(SL_ERR_NO_MEMORY, "verify: out of host memory for %zu-element chunks", chunk);
        goto done;
    }
    const int copy = v->kind == SL_KIND_CEILING;
    const int tol = v->ulp_tolerance;
    for (size_t lo = 0; lo < n; lo += chunk) {
        size_t m = n - lo < chunk ? n - lo : chunk;
        st = ctx->ops->download(ctx, got, (const unsigned char *)c + lo * oes, m * oes);
        if (st != SL_OK)
            goto done;
        sl_rand_fill(dt, a, m, seed_a, first_a + lo);
        if (copy) {
            memcpy(want, a, m * es);
        } else {
            sl_rand_fill(dt, b, m, seed_b, first_b + lo);
            /* The reference itself runs on per-thread slices: the oracle is
             * the same serial loop, just not serial across the chunk. */
#pragma omp parallel
            {
                size_t s_lo, s_hi;
                sl_cpu_share(m * es, &s_lo, &s_hi);
                s_lo /= es;
                s_hi /= es;
                sl_ref_ew(v->op, dt, odt, alpha, s_hi - s_lo, a + s_lo * es, b + s_lo * es, want + s_lo * oes);
            }
        }
        uint64_t bad = 0, inexact = 0;
#pragma omp parallel for reduction(+ : bad, inexact) schedule(static)
        for (size_t i = 0; i < m; i++)
            bad += !same(odt, raw_at(got, oes, i), raw_at(want, oes, i), got, want, i, tol, &inexact);
        out->inexact += inexact;
        if (bad) {
            for (size_t i = 0; i < m && out->shown < SL_VERIFY_SHOW; i++) {
                uint32_t g = raw_at(got, oes, i), w = raw_at(want, oes, i);
                uint64_t dummy = 0;
                if (!same(odt, g, w, got, want, i, tol, &dummy)) {
                    out->first[out->shown].index = lo + i;
                    out->first[out->shown].got = g;
                    out->first[out->shown].want = w;
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
    const int digits = 2 * (int)sl_dtype_size(chk->dtype);
    for (int i = 0; i < chk->shown && used < len; i++) {
        float g = sl_dtype_load(chk->dtype, &chk->first[i].got, 0), w = sl_dtype_load(chk->dtype, &chk->first[i].want, 0);
        int k = snprintf(buf + used, len - used, "  c[%llu] = %a (0x%0*x), want %a (0x%0*x)\n",
                         (unsigned long long)chk->first[i].index, g, digits, chk->first[i].got, w, digits,
                         chk->first[i].want);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}
