/*
 * kernels.c - the OpenMP rungs of the CPU backend.
 *
 * All loops use schedule(static) with the same iteration space as the
 * parallel first touch in backend.c, so on a NUMA machine each thread reads
 * and writes pages that live on its own node.
 */
#include "cpu.h"
#include "internal.h"

#include <omp.h>
#include <string.h>

int sl_cpu_threads(void)
{
    return omp_get_max_threads();
}

void sl_cpu_share(size_t total, size_t *lo, size_t *hi)
{
    size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
    /* 64-byte granules, so no two threads write one cache line. */
    size_t granules = (total + 63) / 64;
    size_t g_lo = granules * t / nt, g_hi = granules * (t + 1) / nt;
    *lo = g_lo * 64 < total ? g_lo * 64 : total;
    *hi = g_hi * 64 < total ? g_hi * 64 : total;
}

/* Rung "omp": static chunks per thread, SIMD inside each chunk. The f32
 * add loop is branch-free, so GCC emits packed adds (check with
 * -fopt-info-vec). No restrict: c may alias a or b exactly, which the loop
 * handles since each element is read before it is written by the same
 * iteration. Other ops and dtypes run the reference loop on each thread's
 * share (fmaf and the narrowing conversions do not vectorise). */
sl_status sl_cpu_ew_omp(const sl_args *x)
{
    const size_t n = x->n;
    if (x->op == SL_OP_ADD && x->dtype == SL_F32) {
        const float *a = x->a, *b = x->b;
        float *c = x->c;
#pragma omp parallel for simd schedule(static)
        for (size_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        return SL_OK;
    }
    const size_t es = sl_dtype_size(x->dtype);
#pragma omp parallel
    {
        size_t lo, hi;
        sl_cpu_share(n * es, &lo, &hi);
        lo /= es;
        hi /= es;
        sl_ref_ew(x->op, x->dtype, x->dtype, x->alpha, hi - lo, (const char *)x->a + lo * es,
                  (const char *)x->b + lo * es, (char *)x->c + lo * es);
    }
    return SL_OK;
}

/* The CPU copy ceiling: each thread memcpy()s its static share, which glibc
 * does with the widest loads and stores the machine has (and non-temporal
 * stores for large sizes). */
sl_status sl_cpu_ceiling_copy(const sl_args *x)
{
    const size_t bytes = x->n * sl_dtype_size(x->dtype);
    const char *src = x->a;
    char *dst = x->c;
#pragma omp parallel
    {
        size_t lo, hi;
        sl_cpu_share(bytes, &lo, &hi);
        memcpy(dst + lo, src + lo, hi - lo);
    }
    return SL_OK;
}
