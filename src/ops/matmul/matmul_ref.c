/*
 * matmul_ref.c - matmul's reference in fp64 and its error bound: the code
 * every rung, peer and the public sl_gemm are judged by. Independent of
 * the rungs: no tiling, no fp32 anywhere, inputs widened exactly.
 */
#include "mm.h"

#include "dtype_conv.h"
#include "internal.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JB 256 /* columns of B per block: JB doubles of ref + mag stay in L1/L2 */
#define KB 128 /* rows of B per block */

static inline double ld(sl_dtype dt, const void *base, int64_t i)
{
    return sl_dtype_load_f64(dt, base, (size_t)i);
}

void sl_mm_reference(const sl_mm *p, const void *c0, double *ref, double *mag)
{
    const int64_t m = p->m, n = p->n, k = p->k;
    /* B widened once, dense K x N, and its magnitudes */
    double *b = malloc(sizeof(double) * (size_t)(k * n));
    double *babs = malloc(sizeof(double) * (size_t)(k * n));
    if (!b || !babs) {
        free(b);
        free(babs);
        /* slow path, no extra memory */
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                sl_mm_reference_at(p, c0, i, j, &ref[i * n + j], &mag[i * n + j]);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t kk = 0; kk < k; kk++)
        for (int64_t j = 0; j < n; j++) {
            b[kk * n + j] = ld(p->dtype, p->b, kk * p->ldb + j);
            babs[kk * n + j] = fabs(b[kk * n + j]);
        }
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t i = 0; i < m; i++) {
        double *r = ref + i * n, *g = mag + i * n;
        for (int64_t j = 0; j < n; j++)
            r[j] = g[j] = 0.0;
        for (int64_t j0 = 0; j0 < n; j0 += JB) {
            const int64_t j1 = j0 + JB < n ? j0 + JB : n;
            for (int64_t k0 = 0; k0 < k; k0 += KB) {
                const int64_t k1 = k0 + KB < k ? k0 + KB : k;
                for (int64_t kk = k0; kk < k1; kk++) {
                    const double a = ld(p->dtype, p->a, i * p->lda + kk), aa = fabs(a);
                    const double *bk = b + kk * n, *bak = babs + kk * n;
#pragma omp simd
                    for (int64_t j = j0; j < j1; j++) {
                        r[j] += a * bk[j];
                        g[j] += aa * bak[j];
                    }
                }
            }
        }
        for (int64_t j = 0; j < n; j++) {
            double c = sl_mm_scalar(p->beta) != 0.0 ? ld(p->dtype, c0, i * p->ldc + j) : 0.0;
            r[j] = sl_mm_scalar(p->alpha) * r[j] + sl_mm_scalar(p->beta) * c;
            g[j] = fabs(sl_mm_scalar(p->alpha)) * g[j] + fabs(sl_mm_scalar(p->beta) * c);
        }
    }
    free(b);
    free(babs);
}

void sl_mm_reference_at(const sl_mm *p, const void *c0, int64_t i, int64_t j, double *ref, double *mag)
{
    double s = 0.0, g = 0.0;
    for (int64_t kk = 0; kk < p->k; kk++) {
        const double t = ld(p->dtype, p->a, i * p->lda + kk) * ld(p->dtype, p->b, kk * p->ldb + j);
        s += t;
        g += fabs(t);
    }
    const double c = sl_mm_scalar(p->beta) != 0.0 ? ld(p->dtype, c0, i * p->ldc + j) : 0.0;
    *ref = sl_mm_scalar(p->alpha) * s + sl_mm_scalar(p->beta) * c;
    *mag = fabs(sl_mm_scalar(p->alpha)) * g + fabs(sl_mm_scalar(p->beta) * c);
}

static double unit_roundoff(sl_dtype dt)
{
    switch (dt) {
    case SL_BF16: return ldexp(1.0, -8);
    case SL_F16: return ldexp(1.0, -11);
    default: return ldexp(1.0, -24);
    }
}

/* the factor of mag in the bound */
static double mag_factor(const sl_mm *p, sl_mm_math math)
{
    const double u_acc = math == SL_MM_FP32 ? ldexp(1.0, -24) : ldexp(1.0, -23);
    const double u_in = math == SL_MM_TF32 ? ldexp(1.0, -10) : 0.0;
    const double nu = (double)(p->k + 2) * u_acc;
    return nu / (1.0 - nu) + 2.0 * u_in;
}

double sl_mm_bound(const sl_mm *p, sl_mm_math math, double ref, double mag)
{
    return unit_roundoff(p->dtype) * fabs(ref) + mag_factor(p, math) * mag;
}

static sl_status entry_fail(const sl_mm *p, int64_t i, int64_t j, double got, double ref, double bound)
{
    return sl_fail(SL_ERR_VERIFY,
                   "matmul %lldx%lldx%lld %s: C[%lld][%lld] = %.9g, reference %.9g, |diff| %.3g > bound %.3g",
                   (long long)p->m, (long long)p->n, (long long)p->k, sl_dtype_name(p->dtype), (long long)i,
                   (long long)j, got, ref, fabs(got - ref), bound);
}

void sl_mm_expect_free(sl_mm_expect *e)
{
    free(e->ref);
    free(e->mag);
    free(e->si);
    free(e->sj);
    free(e->row_ref);
    free(e->row_mag);
    memset(e, 0, sizeof *e);
}

sl_status sl_mm_expect_make(const sl_mm *p, bool full, int samples, sl_mm_expect *e)
{
    memset(e, 0, sizeof *e);
    e->full = full;
    e->m = p->m;
    e->n = p->n;
    e->k = p->k;
    const int64_t m = p->m, n = p->n, k = p->k;
    if (full) {
        e->ref = malloc(sizeof(double) * (size_t)(m * n));
        e->mag = malloc(sizeof(double) * (size_t)(m * n));
        if (!e->ref || !e->mag) {
            sl_mm_expect_free(e);
            return sl_fail(SL_ERR_NO_MEMORY, "matmul check: no host memory for %lldx%lld fp64", (long long)m,
                           (long long)n);
        }
        sl_mm_reference(p, p->c, e->ref, e->mag);
        return SL_OK;
    }
    const int ns = samples + 4;
    e->nsamp = ns;
    e->ref = malloc(sizeof(double) * (size_t)ns);
    e->mag = malloc(sizeof(double) * (size_t)ns);
    e->si = malloc(sizeof(int64_t) * (size_t)ns);
    e->sj = malloc(sizeof(int64_t) * (size_t)ns);
    e->row_ref = malloc(sizeof(double) * (size_t)m);
    e->row_mag = malloc(sizeof(double) * (size_t)m);
    double *bs = malloc(sizeof(double) * (size_t)k), *bas = malloc(sizeof(double) * (size_t)k);
    if (!e->ref || !e->mag || !e->si || !e->sj || !e->row_ref || !e->row_mag || !bs || !bas) {
        free(bs);
        free(bas);
        sl_mm_expect_free(e);
        return sl_fail(SL_ERR_NO_MEMORY, "matmul check: no host memory");
    }
    for (int s = 0; s < ns; s++) {
        if (s < 4) {
            e->si[s] = (s & 1) ? m - 1 : 0;
            e->sj[s] = (s & 2) ? n - 1 : 0;
        } else {
            const uint64_t r = sl_rand_bits(0x6d6d, (uint64_t)s);
            e->si[s] = (int64_t)((r >> 32) % (uint64_t)m);
            e->sj[s] = (int64_t)((r & 0xffffffffu) % (uint64_t)n);
        }
    }
#pragma omp parallel for schedule(dynamic, 16)
    for (int s = 0; s < ns; s++)
        sl_mm_reference_at(p, p->c, e->si[s], e->sj[s], &e->ref[s], &e->mag[s]);
#pragma omp parallel for schedule(static)
    for (int64_t kk = 0; kk < k; kk++) {
        double sum = 0, g = 0;
        for (int64_t j = 0; j < n; j++) {
            const double v = ld(p->dtype, p->b, kk * p->ldb + j);
            sum += v;
            g += fabs(v);
        }
        bs[kk] = sum;
        bas[kk] = g;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++) {
        double sum = 0, g = 0, cs = 0, cg = 0;
        for (int64_t kk = 0; kk < k; kk++) {
            const double a = ld(p->dtype, p->a, i * p->lda + kk);
            sum += a * bs[kk];
            g += fabs(a) * bas[kk];
        }
        if (sl_mm_scalar(p->beta) != 0.0)
            for (int64_t j = 0; j < n; j++) {
                const double c = ld(p->dtype, p->c, i * p->ldc + j);
                cs += c;
                cg += fabs(c);
            }
        e->row_ref[i] = sl_mm_scalar(p->alpha) * sum + sl_mm_scalar(p->beta) * cs;
        e->row_mag[i] = fabs(sl_mm_scalar(p->alpha)) * g + fabs(sl_mm_scalar(p->beta)) * cg;
    }
    free(bs);
    free(bas);
    return SL_OK;
}

sl_status sl_mm_expect_check(const sl_mm *p, sl_mm_math math, const sl_mm_expect *e, const void *got,
                             double *worst)
{
    double w = 0.0;
    const int64_t m = e->m, n = e->n;
    if (worst)
        *worst = INFINITY;
    if (e->full) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                const double g = ld(p->dtype, got, i * p->ldc + j), r = e->ref[i * n + j];
                const double b = sl_mm_bound(p, math, r, e->mag[i * n + j]), d = fabs(g - r);
                if (!(d <= b)) /* NaN fails too */
                    return entry_fail(p, i, j, g, r, b);
                if (b > 0 && d / b > w)
                    w = d / b;
            }
        if (worst)
            *worst = w;
        return SL_OK;
    }
    for (int s = 0; s < e->nsamp; s++) {
        const double g = ld(p->dtype, got, e->si[s] * p->ldc + e->sj[s]), r = e->ref[s];
        const double b = sl_mm_bound(p, math, r, e->mag[s]), d = fabs(g - r);
        if (!(d <= b))
            return entry_fail(p, e->si[s], e->sj[s], g, r, b);
        if (b > 0 && d / b > w)
            w = d / b;
    }
    const double u_out = unit_roundoff(p->dtype), f = mag_factor(p, math);
    int64_t bad = -1;
    double bad_got = 0, bad_ref = 0, bad_bound = 0, wr = 0;
#pragma omp parallel for schedule(static) reduction(max : wr)
    for (int64_t i = 0; i < m; i++) {
        double gs = 0, ga = 0;
        for (int64_t j = 0; j < n; j++) {
            const double v = ld(p->dtype, got, i * p->ldc + j);
            gs += v;
            ga += fabs(v);
        }
        /* sum_j u_out |ref_ij| <= u_out (1 + 2 u_out) sum_j |got_ij| for entries within their bounds
         * (a failing entry's own excess shows in the difference); + the fp64 sums' error */
        const double b = u_out * (1.0 + 2.0 * u_out) * ga + f * e->row_mag[i] +
                         (double)(e->k + n + 2) * ldexp(1.0, -53) * (e->row_mag[i] + ga);
        const double d = fabs(gs - e->row_ref[i]);
        if (!(d <= b)) {
#pragma omp critical
            if (bad < 0 || i < bad) {
                bad = i;
                bad_got = gs;
                bad_ref = e->row_ref[i];
                bad_bound = b;
            }
        } else if (b > 0 && d / b > wr)
            wr = d / b;
    }
    if (bad >= 0)
        return sl_fail(SL_ERR_VERIFY,
                       "matmul %lldx%lldx%lld %s: row sum %lld of C = %.12g, reference alpha A (B 1) + beta C0 1 = "
                       "%.12g, |diff| %.3g > bound %.3g",
                       (long long)p->m, (long long)p->n, (long long)p->k, sl_dtype_name(p->dtype), (long long)bad,
                       bad_got, bad_ref, fabs(bad_got - bad_ref), bad_bound);
    if (worst)
        *worst = wr > w ? wr : w;
    return SL_OK;
}

sl_status sl_mm_check(const sl_mm *p, sl_mm_math math, const void *c0, const void *got, bool full, int samples,
                      double *worst)
{
    sl_mm q = *p;
    q.c = (void *)c0;
    sl_mm_expect e;
    sl_status st = sl_mm_expect_make(&q, full, samples, &e);
    if (st == SL_OK)
        st = sl_mm_expect_check(p, math, &e, got, worst);
    sl_mm_expect_free(&e);
    return st;
}
