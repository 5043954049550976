/*
 * sbwd_check.h - what the softmax-backward tests share
 * (test_softmax_bwd_cpu.c, test_gpu_softmax_bwd.c): inputs drawn here (y a
 * real softmax of logits spanning +-20 and more, dy of either sign and
 * wide magnitude), special rows, an oracle written once more in fp64 (the
 * formula as printed, not the op's reference), and the element check of
 * sl_softmax_bwd's documented bound:
 *   |got - want| <= ulps ulp(want) (+1 ulp of a 16-bit dtype)
 *                   + |y_j| L 2^-24 sum_k |y_k dy_k| + 2^-126,
 * L = ceil(cols / 32) + 9 (api.h).
 */
#ifndef SL_TEST_SBWD_CHECK_H
#define SL_TEST_SBWD_CHECK_H

#include "check.h"
#include "dtype_conv.h"
#include "streamlab.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row kinds: y = softmax of logits uniform in [-20, 20) and dy uniform in
 * [-4, 4); logits in [-60, 60) with dy in [-1e3, 1e3); one NaN in dy; y
 * one-hot-ish (one logit 1e4 above the rest); dy constant (dx = 0 exactly
 * in exact arithmetic: pure cancellation); y not a softmax (any signs,
 * magnitudes 2^-8 to 2^2: the formula for any y). */
enum { SB_SOFT20 = 0, SB_SOFT60, SB_NAN, SB_ONEHOT, SB_CONSTDY, SB_ANYY, SB_KINDS };

static inline uint64_t sb_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline double sb_unif(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(sb_next(s) >> 11) * 0x1p-53;
}

/* Fill y and dy (rows x cols of dt, leading dimension ld, host memory);
 * row r is of kind kinds[r % nkinds]. y is stored rounded into dt. */
static inline void sb_fill(sl_dtype dt, void *y, void *dy, size_t rows, size_t cols, size_t ld, uint64_t seed,
                           const int *kinds, int nkinds)
{
    uint64_t s = seed;
    double *x = malloc(cols * sizeof *x);
    for (size_t r = 0; r < rows; r++) {
        const int kind = kinds[r % (size_t)nkinds];
        const size_t hot = (size_t)(sb_next(&s) % cols);
        const double span = kind == SB_SOFT60 ? 60.0 : 20.0;
        double m = -INFINITY, sum = 0.0;
        for (size_t j = 0; j < cols; j++) {
            x[j] = sb_unif(&s, -span, span) + (kind == SB_ONEHOT && j == hot ? 1e4 : 0.0);
            m = fmax(m, x[j]);
        }
        for (size_t j = 0; j < cols; j++)
            sum += exp(x[j] - m);
        for (size_t j = 0; j < cols; j++) {
            double yv = exp(x[j] - m) / sum, g = sb_unif(&s, -4.0, 4.0);
            if (kind == SB_SOFT60)
                g *= 250.0;
            else if (kind == SB_NAN && j == hot)
                g = NAN;
            else if (kind == SB_CONSTDY)
                g = 1.5;
            if (kind == SB_ANYY) {
                yv = ldexp(sb_unif(&s, 1.0, 2.0), (int)(sb_next(&s) % 10) - 8) * (sb_next(&s) & 1 ? -1.0 : 1.0);
                g = ldexp(sb_unif(&s, 1.0, 2.0), (int)(sb_next(&s) % 10) - 8) * (sb_next(&s) & 1 ? -1.0 : 1.0);
            }
            sl_dtype_store_f64(dt, y, r * ld + j, yv);
            sl_dtype_store_f64(dt, dy, r * ld + j, g);
        }
    }
    free(x);
}

/* The oracle, from the stored inputs: want[r cols + j] = y (dy - s) in
 * fp64, and mag[r] = sum_k |y_k dy_k| (for the bound). */
static inline void sb_oracle(sl_dtype dt, const void *y, const void *dy, size_t rows, size_t cols, size_t ld,
                             double *want, double *mag)
{
    for (size_t r = 0; r < rows; r++) {
        double s = 0.0, a = 0.0;
        for (size_t j = 0; j < cols; j++) {
            const double p = sl_dtype_load_f64(dt, y, r * ld + j) * sl_dtype_load_f64(dt, dy, r * ld + j);
            s += p;
            a += fabs(p);
        }
        mag[r] = a;
        for (size_t j = 0; j < cols; j++) {
            const double yv = sl_dtype_load_f64(dt, y, r * ld + j), g = sl_dtype_load_f64(dt, dy, r * ld + j);
            want[r * cols + j] = yv * (g - s);
        }
    }
}

/* Compare got (rows x cols of dt at ld) with the oracle under the bound
 * above, the cancellation term scaled by `slack` (1: the documented
 * bound; below 1: tighter, for showing that the bound can fail). A NaN
 * oracle element wants NaN. Returns the failures; prints the first few. */
static inline size_t sb_compare(sl_dtype dt, const void *got, const void *y, const double *want, const double *mag,
                                size_t rows, size_t cols, size_t ld, double slack, const char *what)
{
    size_t bad = 0;
    const double L = ceil((double)cols / 32.0) + 9.0;
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < cols; j++) {
            const double g = sl_dtype_load_f64(dt, got, r * ld + j), e = want[r * cols + j];
            if (isnan(e)) {
                if (!isnan(g) && bad++ < 5)
                    fprintf(stderr, "%s: [%zu,%zu] = %a, want NaN\n", what, r, j, g);
                continue;
            }
            unsigned char wb[8];
            sl_dtype_store_f64(dt, wb, 0, e);
            const double w = sl_dtype_load_f64(dt, wb, 0);
            const double yv = fabs(sl_dtype_load_f64(dt, y, r * ld + j));
            const double allowed = 2.0 * sl_dtype_ulp(dt, w) + (sl_dtype_size(dt) < 4 ? sl_dtype_ulp(dt, w) : 0.0) +
                                   slack * yv * L * 0x1p-24 * mag[r] + 0x1p-126;
            if (!(fabs(g - w) <= allowed) && bad++ < 5)
                fprintf(stderr, "%s: [%zu,%zu] = %a, want %a (exact %a), allowed %.3g\n", what, r, j, g, w, e,
                        allowed);
        }
    return bad;
}

#endif /* SL_TEST_SBWD_CHECK_H */
