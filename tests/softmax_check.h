/*
 * softmax_check.h - what the softmax tests share (test_softmax_cpu.c,
 * test_gpu_softmax.c): inputs drawn here (not the lab's generator), the
 * special rows, an oracle written once more in fp64 (the formula as
 * printed, not the op's reference), and the element check of the op's
 * bound ((16 + ln(1 / |y|) + ln cols) x 2^-24 relative + 2^-126, plus one
 * ulp of a 16-bit dtype; softmax/api.h) with the rows-sum-to-one check
 * under the same per-element bound.
 */
#ifndef SL_TEST_SOFTMAX_CHECK_H
#define SL_TEST_SOFTMAX_CHECK_H

#include "check.h"
#include "dtype_conv.h"
#include "streamlab.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Row kinds: random in [-8, 8); random with every 7th column -inf; all
 * -inf; one NaN; one +inf; huge magnitudes (+-3e38: x - m overflows f32
 * without the max subtracted); constant. SMX_KINDS counts these. Then the
 * wide rows of issue 25 (logits and attention scores span more than
 * [-8, 8)): uniform in [-20, 20); uniform in [-80, 80) (x - m down to
 * -160: results from 1 down through the subnormals to 0); an attention
 * mask, about half the columns -1e4 (+-8) and the rest in [-20, 20).
 * Then two rows for the online (max, sum) of the bulk rung (issue 33):
 * one huge logit (1000, at a random column) among [-20, 20), so that one
 * piece, one block of a cluster, holds the whole row's mass; and a ramp
 * from -40 to +40 along the row (+-0.5 noise), so that every piece raises
 * every thread's running max and every state is rescaled the most times. */
enum { SMX_RANDOM = 0, SMX_SOME_NEGINF, SMX_ALL_NEGINF, SMX_ONE_NAN, SMX_ONE_POSINF, SMX_HUGE, SMX_CONST,
       SMX_KINDS, SMX_WIDE20 = SMX_KINDS, SMX_WIDE80, SMX_MASK1E4, SMX_ONE_BIG, SMX_RAMP };

static inline uint64_t smx_t_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fill rows x cols (leading dimension ld) of dt in host memory; row r is
 * of kind kinds[r % nkinds]. Padding between rows is left as it is. */
static inline void smx_t_fill(sl_dtype dt, void *x, size_t rows, size_t cols, size_t ld, uint64_t seed, const int *kinds,
                       int nkinds)
{
    uint64_t s = seed;
    for (size_t r = 0; r < rows; r++) {
        const int kind = kinds[r % (size_t)nkinds];
        const size_t bad = (size_t)(smx_t_next(&s) % cols);
        for (size_t j = 0; j < cols; j++) {
            double v = ((double)(smx_t_next(&s) >> 11) * 0x1p-53 - 0.5) * 16.0;
            if (kind == SMX_SOME_NEGINF && j % 7 == 3)
                v = -INFINITY;
            else if (kind == SMX_ALL_NEGINF)
                v = -INFINITY;
            else if (kind == SMX_ONE_NAN && j == bad)
                v = NAN;
            else if (kind == SMX_ONE_POSINF && j == bad)
                v = INFINITY;
            else if (kind == SMX_HUGE)
                v = (j == bad ? 3e38 : v < 0 ? -3e38 : 3e38 - 1e32 * fabs(v));
            else if (kind == SMX_CONST)
                v = 2.5;
            else if (kind == SMX_WIDE20)
                v *= 2.5;
            else if (kind == SMX_WIDE80)
                v *= 10.0;
            else if (kind == SMX_MASK1E4)
                v = (smx_t_next(&s) & 1) ? -1e4 + v : 2.5 * v;
            else if (kind == SMX_ONE_BIG)
                v = j == bad ? 1000.0 : 2.5 * v;
            else if (kind == SMX_RAMP)
                v = -40.0 + 80.0 * (double)j / (double)cols + v / 16.0;
            sl_dtype_store_f64(dt, x, r * ld + j, v);
        }
    }
}

/* The oracle: y = exp(x - m) / sum exp(x - m) in fp64 from the stored
 * inputs, into want (rows x cols doubles, dense). */
static inline void smx_t_oracle(sl_dtype dt, const void *x, size_t rows, size_t cols, size_t ld, double *want)
{
    for (size_t r = 0; r < rows; r++) {
        double m = -INFINITY, s = 0.0;
        for (size_t j = 0; j < cols; j++)
            m = fmax(m, sl_dtype_load_f64(dt, x, r * ld + j));
        int nan = 0;
        for (size_t j = 0; j < cols; j++) {
            const double v = sl_dtype_load_f64(dt, x, r * ld + j);
            nan |= isnan(v);
            s += exp(v - m);
        }
        for (size_t j = 0; j < cols; j++)
            want[r * cols + j] = nan ? NAN : exp(sl_dtype_load_f64(dt, x, r * ld + j) - m) / s;
    }
}

/* Check got (host, rows x cols of dt at leading dimension ld) against the
 * oracle: each element within
 *   (rel + logc x (ln(1 / |w|) + ln cols)) x 2^-24 x |w| + 2^-126
 * (+ one ulp of a 16-bit dtype) of w, the oracle rounded into dt (NaN
 * where the oracle is NaN), and each finite row's sum within the sum of
 * those bounds (and of the roundings) of 1. rel = 16, logc = 1 is the op's
 * bound (api.h, op.h's SL_TOL_REL with log terms); logc = 0 the old flat
 * 16 x 2^-24, which wide rows break (issue 25). Reports the first few
 * failures under `what` unless quiet. Returns the failures. */
static inline size_t smx_t_check(sl_dtype dt, const void *got, const double *want, size_t rows, size_t cols, size_t ld,
                                 double rel, double logc, const char *what, int quiet)
{
    size_t bad = 0;
    const double ln_n = cols > 1 ? log((double)cols) : 0.0;
    for (size_t r = 0; r < rows; r++) {
        double sum = 0.0, bound = 0.0;
        int nanrow = 0;
        for (size_t j = 0; j < cols; j++) {
            const double g = sl_dtype_load_f64(dt, got, r * ld + j), e = want[r * cols + j];
            if (isnan(e)) {
                nanrow = 1;
                if (!isnan(g) && bad++ < 5 && !quiet)
                    fprintf(stderr, "%s: [%zu,%zu] = %a, want NaN\n", what, r, j, g);
                continue;
            }
            unsigned char wb[8];
            sl_dtype_store_f64(dt, wb, 0, e);
            const double w = sl_dtype_load_f64(dt, wb, 0);
            const double q = rel + (w != 0.0 ? logc * (log(1.0 / fabs(w)) + ln_n) : 0.0);
            const double allowed = q * 0x1p-24 * fabs(w) + 0x1p-126 + (sl_dtype_size(dt) < 4 ? sl_dtype_ulp(dt, w) : 0.0);
            if (!(fabs(g - w) <= allowed) && bad++ < 5 && !quiet)
                fprintf(stderr, "%s: [%zu,%zu] = %a, want %a (exact %a), allowed %.3g\n", what, r, j, g, w, e, allowed);
            sum += g;
            bound += allowed + fabs(w - e);
        }
        if (!nanrow && !(fabs(sum - 1.0) <= bound + 1e-15) && bad++ < 5 && !quiet)
            fprintf(stderr, "%s: row %zu sums to 1 %+.3g, bound %.3g\n", what, r, sum - 1.0, bound);
    }
    return bad;
}

/* The op's bound with rel_ulps in place of 16 (a peer's declared ulps). */
static inline size_t smx_t_compare_rel(sl_dtype dt, const void *got, const double *want, size_t rows, size_t cols,
                                       size_t ld, int rel_ulps, const char *what)
{
    return smx_t_check(dt, got, want, rows, cols, ld, rel_ulps, 1.0, what, 0);
}

/* The largest relative error |got - want| / |want| over the elements
 * whose want (the oracle rounded into dt) is finite and at least 2^-126,
 * in units of 2^-24; and (worst_q) the largest fraction of the op's bound
 * (16 + ln(1 / |w|) + ln cols) x 2^-24 x |w| that the error uses. */
static inline double smx_t_worst(sl_dtype dt, const void *got, const double *want, size_t rows, size_t cols, size_t ld,
                                 double *worst_q)
{
    double worst = 0.0, wq = 0.0;
    const double ln_n = cols > 1 ? log((double)cols) : 0.0;
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < cols; j++) {
            const double e = want[r * cols + j];
            unsigned char wb[8];
            sl_dtype_store_f64(dt, wb, 0, e);
            const double w = sl_dtype_load_f64(dt, wb, 0), g = sl_dtype_load_f64(dt, got, r * ld + j);
            if (!(fabs(w) >= 0x1p-126) || isinf(w))
                continue;
            const double q = fabs(g - w) / (fabs(w) * 0x1p-24);
            if (!(q <= worst))
                worst = q; /* a NaN got makes it NaN */
            const double f = q / (16.0 + log(1.0 / fabs(w)) + ln_n);
            if (!(f <= wq))
                wq = f;
        }
    if (worst_q)
        *worst_q = wq;
    return worst;
}

/* The op's bound. */
static inline size_t smx_t_compare(sl_dtype dt, const void *got, const double *want, size_t rows, size_t cols, size_t ld,
                                   const char *what)
{
    return smx_t_compare_rel(dt, got, want, rows, cols, ld, 16, what);
}

#endif /* SL_TEST_SOFTMAX_CHECK_H */
