/*
 * verify.c - see verify.h.
 */
#include "verify.h"

#include "dtype_conv.h"
#include "rng.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 22)

void sl_check_reset(sl_check *c, sl_dtype dt)
{
    memset(c, 0, sizeof *c);
    c->dtype = dt;
}

/* Element i of a raw array of es-byte elements, zero-extended. */
static uint64_t raw_at(const unsigned char *p, size_t es, size_t i)
{
    switch (es) {
    case 1: return p[i];
    case 2: {
        uint16_t v;
        memcpy(&v, p + 2 * i, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p + 4 * i, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p + 8 * i, 8);
        return v;
    }
    }
}

/* The unit roundoff of an accumulator: 2^-24 (f32), 2^-53 (f64). */
static double unit_roundoff(sl_dtype acc)
{
    return acc == SL_F64 ? 0x1p-53 : 0x1p-24;
}

sl_tolerance sl_tolerance_for(const sl_op_desc *op, const sl_variant *v, sl_dtype dt, uint64_t n, double scale)
{
    sl_tolerance t = {op->tol.kind, op->tol.ulps, 0.0, false, 0.0};
    if (v->copy) {
        t.kind = SL_TOL_EXACT;
        t.ulps = 0;
        return t;
    }
    if (t.kind == SL_TOL_REL) {
        t.abs_extra = 0x1p-126; /* op.h: underflowed results */
        t.log_terms = op->tol.log_terms;
        t.log_n = n > 1 ? log((double)n) : 0.0;
        if (v->ulps > t.ulps)
            t.ulps = v->ulps; /* a peer's own exp and sum order (op.h) */
        return t;
    }
    if (t.kind == SL_TOL_REDUCTION) {
        /* L = ceil(n / P) + ceil(log2 P) + 1 (+ chain_extra) additions on
         * the longest path (op.h; Higham 2002, section 4.2). */
        const double P = v->partials ? (double)v->partials : 1.0;
        const double L = ceil((double)n / P) + ceil(log2(P)) + 1.0 + (double)v->chain_extra;
        const double u = unit_roundoff(v->acc ? v->acc : dt) * (v->acc_truncates ? 2.0 : 1.0);
        t.abs_extra = (L * u + 2.0 * (double)v->in_round) * scale;
        return t;
    }
    if (v->ulps > t.ulps) {
        t.kind = SL_TOL_ULP;
        t.ulps = v->ulps;
    }
    (void)dt;
    return t;
}

/* |got - want| over what tol allows: <= 1 passes. 0 when bit-identical. */
static double err_ratio(sl_dtype dt, uint64_t g, uint64_t w, const void *gp, const void *wp, size_t i,
                        const sl_tolerance *tol)
{
    if (g == w)
        return 0.0;
    if (tol->kind == SL_TOL_EXACT)
        return INFINITY;
    double fg = sl_dtype_load_f64(dt, gp, i), fw = sl_dtype_load_f64(dt, wp, i);
    if (tol->kind == SL_TOL_REL && fg != fg && fw != fw)
        return 0.0; /* op.h: two NaNs match under SL_TOL_REL */
    if (fg != fg || fw != fw)
        return INFINITY;
    if (tol->kind == SL_TOL_REL) {
        /* op.h: with log terms, ulps + ln(1 / |want|) + ln(n); a want of 0
         * leaves the 2^-126 floor alone */
        const double rel = tol->ulps + (tol->log_terms && fw != 0.0 ? log(1.0 / fabs(fw)) + tol->log_n : 0.0);
        const double allowed = rel * 0x1p-24 * fabs(fw) + tol->abs_extra +
                               (sl_dtype_size(dt) < 4 ? sl_dtype_ulp(dt, fw) : 0.0);
        const double err = fabs(fg - fw);
        return err == 0.0 ? 0.0 : err / allowed;
    }
    double allowed = tol->ulps * sl_dtype_ulp(dt, fw) + tol->abs_extra;
    double err = fabs(fg - fw);
    return allowed > 0 ? err / allowed : INFINITY;
}

sl_status sl_verify_buffer(sl_ctx *ctx, const char *name, const void *got, const void *want, size_t n, sl_dtype dt,
                           const sl_tolerance *tol, sl_check *out)
{
    const size_t es = sl_dtype_size(dt);
    if (!es)
        return sl_fail(SL_ERR_INVALID_ARG, "verify: dtype %d is not an sl_dtype", (int)dt);
    out->dtype = dt;
    size_t chunk = n < CHUNK ? n : CHUNK;
    unsigned char *g = n ? malloc(chunk * es) : NULL;
    if (n && !g)
        return sl_fail(SL_ERR_NO_MEMORY, "verify: out of host memory for a %zu-element chunk", chunk);
    const unsigned char *w = want;
    sl_status st = SL_OK;
    for (size_t lo = 0; lo < n; lo += chunk) {
        size_t m = n - lo < chunk ? n - lo : chunk;
        st = ctx->ops->download(ctx, g, (const unsigned char *)got + lo * es, m * es);
        if (st != SL_OK)
            break;
        const unsigned char *wc = w + lo * es;
        uint64_t bad = 0, inexact = 0;
        double worst = out->max_err_ratio;
#pragma omp parallel for reduction(+ : bad, inexact) reduction(max : worst) schedule(static)
        for (size_t i = 0; i < m; i++) {
            double r = err_ratio(dt, raw_at(g, es, i), raw_at(wc, es, i), g, wc, i, tol);
            bad += !(r <= 1.0);
            inexact += r > 0.0 && r <= 1.0;
            if (r > worst && r <= 1.0)
                worst = r;
        }
        out->inexact += inexact;
        out->max_err_ratio = worst;
        if (bad) {
            for (size_t i = 0; i < m && out->shown < SL_VERIFY_SHOW; i++) {
                uint64_t gv = raw_at(g, es, i), wv = raw_at(wc, es, i);
                if (!(err_ratio(dt, gv, wv, g, wc, i, tol) <= 1.0)) {
                    if (out->shown == 0)
                        out->buf = name;
                    out->first[out->shown].index = lo + i;
                    out->first[out->shown].got = gv;
                    out->first[out->shown].want = wv;
                    out->shown++;
                }
            }
            out->mismatches += bad;
        }
    }
    free(g);
    return st;
}

void sl_check_format(const sl_check *chk, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    const size_t es = sl_dtype_size(chk->dtype);
    const int digits = 2 * (int)es;
    for (int i = 0; i < chk->shown && used < len; i++) {
        unsigned char gb[8], wb[8];
        memcpy(gb, &chk->first[i].got, 8); /* little-endian: the low es bytes are the element */
        memcpy(wb, &chk->first[i].want, 8);
        double g = sl_dtype_load_f64(chk->dtype, gb, 0), w = sl_dtype_load_f64(chk->dtype, wb, 0);
        int k = snprintf(buf + used, len - used, "  %s[%llu] = %a (0x%0*llx), want %a (0x%0*llx)\n",
                         chk->buf ? chk->buf : "out", (unsigned long long)chk->first[i].index, g, digits,
                         (unsigned long long)chk->first[i].got, w, digits, (unsigned long long)chk->first[i].want);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

void sl_reference_run(const sl_op_desc *op, sl_ref_args *a, uint64_t unit)
{
    bool reduction = false;
    for (int k = 0; k < op->nbufs; k++)
        reduction |= op->bufs[k].scalar;
    if (reduction || op->ref_whole || a->hi - a->lo < 4096) {
        op->reference(a);
        return;
    }
    const uint64_t lo = a->lo, hi = a->hi;
#pragma omp parallel
    {
        sl_ref_args t = *a;
        const uint64_t nt = (uint64_t)omp_get_num_threads(), id = (uint64_t)omp_get_thread_num();
        t.lo = lo + (hi - lo) * id / nt;
        t.hi = lo + (hi - lo) * (id + 1) / nt;
        const uint64_t skip = (t.lo - lo) * unit;
        for (int k = 0; k < op->nbufs; k++) {
            if (t.in[k])
                t.in[k] = (const unsigned char *)t.in[k] + skip * sl_dtype_size(a->dtype);
            if (t.out[k])
                t.out[k] = (unsigned char *)t.out[k] +
                           skip * sl_dtype_size(sl_op_buf_dtype(op, k, a->dtype, a->out_dtype));
        }
        t.last = a->last && id + 1 == nt;
        op->reference(&t);
    }
}

sl_status sl_verify_launch(sl_ctx *ctx, const sl_op_desc *op, const sl_variant *v, sl_dtype dt,
                           const double *scalars, size_t n, void *const *bufs, const uint64_t *seeds,
                           const uint64_t *first, sl_check *out)
{
    const sl_dtype odt = sl_variant_out_dtype(v, dt);
    const size_t es = sl_dtype_size(dt);
    sl_check_reset(out, odt);
    if (op->rank != 1)
        return sl_fail(SL_ERR_UNSUPPORTED, "sl_verify_launch: %s is not a 1-D op", op->name);
    const size_t chunk = n < CHUNK ? (n ? n : 1) : CHUNK;
    unsigned char *in[SL_MAX_BUFS] = {0}, *want[SL_MAX_BUFS] = {0};
    sl_status st = SL_OK;
    for (int k = 0; k < op->nbufs && st == SL_OK; k++) {
        if (sl_role_read(op->bufs[k].role) && !(in[k] = malloc(chunk * es)))
            st = sl_fail(SL_ERR_NO_MEMORY, "verify: out of host memory");
        if (sl_role_written(op->bufs[k].role) && !(want[k] = malloc(chunk * 8)))
            st = sl_fail(SL_ERR_NO_MEMORY, "verify: out of host memory");
    }
    double sc[SL_MAX_SCALARS] = {0};
    for (int k = 0; k < op->nscalars; k++)
        sc[k] = scalars ? scalars[k] : op->scalars[k].dflt;
    const int src = sl_op_first(op, SL_ROLE_IN) >= 0 ? sl_op_first(op, SL_ROLE_IN) : 0, dst = sl_op_first_written(op);
    sl_ref_args a;
    memset(&a, 0, sizeof a);
    a.shape = sl_shape_1d(n);
    a.dtype = dt;
    a.out_dtype = odt;
    a.scalar = sc;
    sl_tolerance tol = {SL_TOL_EXACT, 0, 0.0, false, 0.0};
    for (size_t lo = 0; st == SL_OK && (lo < n || (n == 0 && lo == 0)); lo += chunk) {
        const size_t m = n - lo < chunk ? n - lo : chunk;
        for (int k = 0; k < op->nbufs; k++)
            if (in[k])
                sl_rand_fill(dt, in[k], op->bufs[k].scalar ? 1 : m, seeds[k], (op->bufs[k].scalar ? 0 : lo) + first[k]);
        if (v->copy) {
            st = sl_verify_buffer(ctx, op->bufs[dst].name, (const unsigned char *)bufs[dst] + lo * es, in[src], m, dt,
                                  &tol, out);
            continue;
        }
        a.lo = lo;
        a.hi = lo + m;
        a.last = lo + m >= n;
        for (int k = 0; k < op->nbufs; k++) {
            a.in[k] = in[k];
            a.out[k] = want[k];
        }
        sl_reference_run(op, &a, 1);
        if (a.last)
            tol = sl_tolerance_for(op, v, dt, n, a.scale);
        else if (op->tol.kind != SL_TOL_REDUCTION)
            tol = sl_tolerance_for(op, v, dt, n, 0.0);
        for (int k = 0; k < op->nbufs && st == SL_OK; k++) {
            if (!want[k])
                continue;
            const sl_dtype bdt = sl_op_buf_dtype(op, k, dt, odt);
            if (op->bufs[k].scalar) {
                if (a.last)
                    st = sl_verify_buffer(ctx, op->bufs[k].name, bufs[k], want[k], 1, bdt, &tol, out);
            } else {
                st = sl_verify_buffer(ctx, op->bufs[k].name,
                                      (const unsigned char *)bufs[k] + lo * sl_dtype_size(bdt), want[k], m, bdt, &tol,
                                      out);
            }
        }
        if (n == 0)
            break;
    }
    for (int k = 0; k < SL_MAX_BUFS; k++) {
        free(in[k]);
        free(want[k]);
    }
    return st;
}
