/*
 * xent_check.h - what the cross-entropy tests share (test_xent_cpu.c,
 * test_gpu_xent.c): logits and targets drawn here (not the lab's
 * generator), the special rows, an oracle written once more in fp64 (the
 * formulas of src/ops/xent/api.h, not the op's reference), and the checks
 * of the documented bounds.
 */
#ifndef SL_TEST_XENT_CHECK_H
#define SL_TEST_XENT_CHECK_H

#include "check.h"
#include "dtype_conv.h"
#include "streamlab.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row kinds: logits uniform in [-20, 20); in [-100, 100); [-20, 20) with
 * one logit at 1e4; all equal (2.5); [-20, 20) with one NaN. */
enum { XK_20 = 0, XK_100, XK_HUGE, XK_EQUAL, XK_NAN, XK_KINDS };
#define XT_IGNORE (-100)

static inline uint64_t xt_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Logits (rows x cols of dt, dense) of kinds[r % nkinds], and targets:
 * row r's target is 0, cols - 1, random, ignored (XT_IGNORE) or random
 * for r mod 5 = 0..4 (tmode 0), all ignored (tmode 1), all random
 * (tmode 2), or (tmode 3) for r mod 6 = 0..5 the row's hot column,
 * cols / 2 - 1, cols / 2 (the last and first columns of the bulk
 * kernel's chunks when a row is cut in 2 or 4), cols - 1, ignored, the
 * hot column, and the hot column in every XK_HUGE row (the target is the
 * 1e4 logit: p near 1, its p - (1 - eps) cancels). Targets as int64 in
 * t64 (the caller narrows). */
static inline void xt_fill(sl_dtype dt, void *x, int64_t *t64, size_t rows, size_t cols, uint64_t seed,
                           const int *kinds, int nkinds, int tmode)
{
    uint64_t s = seed;
    for (size_t r = 0; r < rows; r++) {
        const int kind = kinds[r % (size_t)nkinds];
        const size_t hot = (size_t)(xt_next(&s) % cols);
        const double span = kind == XK_100 ? 100.0 : 20.0;
        for (size_t j = 0; j < cols; j++) {
            double v = ((double)(xt_next(&s) >> 11) * 0x1p-53 * 2.0 - 1.0) * span;
            if (kind == XK_HUGE && j == hot)
                v = 1e4;
            else if (kind == XK_EQUAL)
                v = 2.5;
            else if (kind == XK_NAN && j == hot)
                v = NAN;
            sl_dtype_store_f64(dt, x, r * cols + j, v);
        }
        const int64_t rnd = (int64_t)(xt_next(&s) % cols);
        const int m = (int)(r % 5);
        const int m6 = (int)(r % 6);
        t64[r] = tmode == 1 ? XT_IGNORE
                 : tmode == 2 ? rnd
                 : tmode == 3 ? (kind == XK_HUGE || m6 == 0 || m6 == 5 ? (int64_t)hot
                                 : m6 == 1                      ? (int64_t)(cols / 2) - 1
                                 : m6 == 2                      ? (int64_t)(cols / 2)
                                 : m6 == 3                      ? (int64_t)cols - 1
                                                                : XT_IGNORE)
                 : m == 0 ? 0
                 : m == 1 ? (int64_t)cols - 1
                 : m == 3 ? XT_IGNORE
                          : rnd;
    }
}

/* The oracle: per row lse, loss (0 if ignored) and the gradient with
 * scale g (0 for ignored rows), from the stored logits, in fp64.
 * scale[r] = max(1, |m|, |lse|, |x_t|) (the bound's S). */
static inline void xt_oracle(sl_dtype dt, const void *x, const int64_t *t, size_t rows, size_t cols, double eps,
                             double g, double *lse, double *loss, double *grad, double *scale)
{
    for (size_t r = 0; r < rows; r++) {
        double m = -INFINITY, s = 0.0, sx = 0.0;
        int nan = 0;
        for (size_t j = 0; j < cols; j++) {
            const double v = sl_dtype_load_f64(dt, x, r * cols + j);
            nan |= isnan(v);
            m = fmax(m, v);
            sx += v;
        }
        for (size_t j = 0; j < cols; j++)
            s += exp(sl_dtype_load_f64(dt, x, r * cols + j) - m);
        const double l = nan ? NAN : m + log(s);
        const int ign = t[r] == XT_IGNORE;
        const double xt = ign ? 0.0 : sl_dtype_load_f64(dt, x, r * cols + (size_t)t[r]);
        lse[r] = l;
        loss[r] = ign ? 0.0 : l - (1.0 - eps) * xt - (eps != 0.0 ? eps * sx / (double)cols : 0.0);
        scale[r] = fmax(1.0, fmax(fabs(m), fabs(l)));
        if (!ign)
            scale[r] = fmax(scale[r], fabs(xt));
        if (grad)
            for (size_t j = 0; j < cols; j++)
                grad[r * cols + j] =
                    ign ? 0.0
                        : (exp(sl_dtype_load_f64(dt, x, r * cols + j) - l) - ((int64_t)j == t[r] ? 1.0 - eps : 0.0) -
                           eps / (double)cols) * g;
    }
}

/* The documented bounds (src/ops/xent/api.h), slack x the absolute and
 * relative terms beyond one rounding. */
static inline double xt_allow_loss(double want, double S, size_t cols, double eps, double slack)
{
    const double V = (double)cols, L = ceil(log2(V)) + 1.0, u = 0x1p-24;
    return slack * ((16.0 + L) * u * fabs(want) + (16.0 + L) * u * (S + log(V) + 1.0) +
                    eps * (ceil(V / 32.0) + 6.0) * u * S) +
           u * fabs(want);
}

static inline double xt_allow_grad(sl_dtype dt, double w, double S, size_t cols, double slack)
{
    const double V = (double)cols, L = ceil(log2(V)) + 1.0, u = 0x1p-24;
    return slack * ((16.0 + L + 4.0 * S) * u * fabs(w) + (16.0 + L) * u) +
           (sl_dtype_size(dt) < 4 ? sl_dtype_ulp(dt, w) : 0.0) + 0x1p-126;
}

/* Compare per-row f32 results (loss or lse) with the oracle; NaN wants
 * NaN. Returns failures. */
static inline size_t xt_cmp_rows(const float *got, const double *want, const double *scale, size_t rows, size_t cols,
                                 double eps, double slack, const char *what, const char *name)
{
    size_t bad = 0;
    for (size_t r = 0; r < rows; r++) {
        const double g = got[r], w = want[r];
        if (isnan(w)) {
            if (!isnan(g) && bad++ < 5)
                fprintf(stderr, "%s: %s[%zu] = %a, want NaN\n", what, name, r, g);
            continue;
        }
        const double a = xt_allow_loss(w, scale[r], cols, eps, slack);
        if (!(fabs(g - w) <= a) && bad++ < 5)
            fprintf(stderr, "%s: %s[%zu] = %.9g, want %.9g, allowed %.3g\n", what, name, r, g, w, a);
    }
    return bad;
}

static inline size_t xt_cmp_grad(sl_dtype dt, const void *got, const double *want, const double *lse,
                                 const double *scale, size_t rows, size_t cols, double slack, const char *what)
{
    size_t bad = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < cols; j++) {
            const double g = sl_dtype_load_f64(dt, got, r * cols + j), e = want[r * cols + j];
            if (isnan(e) || isnan(lse[r])) {
                if (isnan(e) && !isnan(g) && bad++ < 5)
                    fprintf(stderr, "%s: dx[%zu,%zu] = %a, want NaN\n", what, r, j, g);
                continue;
            }
            unsigned char wb[8];
            sl_dtype_store_f64(dt, wb, 0, e);
            const double w = sl_dtype_load_f64(dt, wb, 0);
            const double a = xt_allow_grad(dt, w, scale[r], cols, slack);
            if (!(fabs(g - w) <= a) && bad++ < 5)
                fprintf(stderr, "%s: dx[%zu,%zu] = %a, want %a (exact %a), allowed %.3g\n", what, r, j, g, w, e, a);
        }
    return bad;
}

/* The backward from a saved lse (sl_cross_entropy_bwd): the row scales
 * g[r] of a reduction (NONE: dloss[r]; SUM: *dloss; MEAN: *dloss / the
 * rows not ignored), in fp64. */
static inline void xt_bwd_scales(const int64_t *t, size_t rows, sl_reduction red, const float *dloss, double *g)
{
    size_t count = 0;
    for (size_t r = 0; r < rows; r++)
        count += t[r] != XT_IGNORE;
    for (size_t r = 0; r < rows; r++)
        g[r] = red == SL_REDUCTION_NONE ? (double)dloss[r]
               : red == SL_REDUCTION_SUM ? (double)dloss[0]
                                         : (double)dloss[0] / (double)count;
}

/* Compare a backward's gradient with the exact one, from the stored
 * logits and the fp64 lse wl (the oracle's, not the f32 the op read):
 * want = (exp(x - lse) - (1 - eps) [j = t] - eps / V) g[r], 0 for an
 * ignored row, NaN where lse is NaN; allowed (src/ops/xent/api.h,
 * sl_cross_entropy_bwd) slack x ((16 + L + 4 S) u |want| + ((16 + L) u +
 * (2 S + 8) u p) |g|), plus one ulp of a 16-bit dtype. Returns failures. */
static inline size_t xt_cmp_grad_bwd(sl_dtype dt, const void *got, const void *x, const int64_t *t, const double *wl,
                                     const double *scale, const double *g, size_t rows, size_t cols, double eps,
                                     double slack, const char *what)
{
    const double V = (double)cols, L = ceil(log2(V)) + 1.0, u = 0x1p-24;
    size_t bad = 0;
    for (size_t r = 0; r < rows; r++) {
        const int ign = t[r] == XT_IGNORE;
        for (size_t j = 0; j < cols; j++) {
            const double gt = sl_dtype_load_f64(dt, got, r * cols + j);
            const double p = ign ? 0.0 : exp(sl_dtype_load_f64(dt, x, r * cols + j) - wl[r]);
            const double e = ign ? 0.0 : (p - ((int64_t)j == t[r] ? 1.0 - eps : 0.0) - eps / V) * g[r];
            if (isnan(e)) {
                if (!isnan(gt) && bad++ < 5)
                    fprintf(stderr, "%s: dx[%zu,%zu] = %a, want NaN\n", what, r, j, gt);
                continue;
            }
            unsigned char wb[8];
            sl_dtype_store_f64(dt, wb, 0, e);
            const double w = sl_dtype_load_f64(dt, wb, 0), S = scale[r];
            const double a = slack * ((16.0 + L + 4.0 * S) * u * fabs(w) +
                                      ((16.0 + L) * u + (2.0 * S + 8.0) * u * p) * fabs(g[r])) +
                             (sl_dtype_size(dt) < 4 ? sl_dtype_ulp(dt, w) : 0.0) + 0x1p-126;
            if (!(fabs(gt - w) <= a) && bad++ < 5)
                fprintf(stderr, "%s: dx[%zu,%zu] = %a, want %a (exact %a), allowed %.3g\n", what, r, j, gt, w, e, a);
        }
    }
    return bad;
}

#endif /* SL_TEST_XENT_CHECK_H */
