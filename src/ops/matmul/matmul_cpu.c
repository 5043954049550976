/*
 * matmul_cpu.c - matmul's CPU rungs (seed 002's CPU comparison): serial
 * and OpenMP, fp32 accumulation, row-major, any M, N, K >= 1 and leading
 * dimensions. They are what a CPU context's sl_gemm runs (the OpenMP one).
 *
 * Loop order i-k-j: the innermost loop walks a row of B and a row of the
 * fp32 accumulator with unit stride (vectorised); a block of JB columns of
 * the accumulator stays in L1 while k runs.
 */
#include "mm.h"

#include "dtype_conv.h"

#include <omp.h>
#include <stdlib.h>

#define JB 512

/* fp32 value of element i of a buffer of dt (f32, bf16, f16) */
static inline float ldf(sl_dtype dt, const void *base, int64_t i)
{
    if (dt == SL_F32)
        return ((const float *)base)[i];
    return sl_dtype_load(dt, base, (size_t)i);
}

/* Rows [i0, i1) of C; acc is JB floats of scratch. */
static void rows(const sl_mm *p, int64_t i0, int64_t i1, float *acc)
{
    const float alpha = (float)p->alpha, beta = (float)p->beta;
    for (int64_t i = i0; i < i1; i++)
        for (int64_t j0 = 0; j0 < p->n; j0 += JB) {
            const int64_t jn = p->n - j0 < JB ? p->n - j0 : JB;
            for (int64_t j = 0; j < jn; j++)
                acc[j] = 0.0f;
            for (int64_t kk = 0; kk < p->k; kk++) {
                const float a = ldf(p->dtype, p->a, i * p->lda + kk);
                if (p->dtype == SL_F32) {
                    const float *b = (const float *)p->b + kk * p->ldb + j0;
#pragma omp simd
                    for (int64_t j = 0; j < jn; j++)
                        acc[j] += a * b[j];
                } else {
                    for (int64_t j = 0; j < jn; j++)
                        acc[j] += a * ldf(p->dtype, p->b, kk * p->ldb + j0 + j);
                }
            }
            for (int64_t j = 0; j < jn; j++) {
                const int64_t at = i * p->ldc + j0 + j;
                float v = alpha * acc[j];
                if (beta != 0.0f)
                    v += beta * ldf(p->dtype, p->c, at);
                sl_dtype_store(p->dtype, p->c, (size_t)at, v);
            }
        }
}

sl_status sl_cpu_mm_serial(const sl_mm *p)
{
    float acc[JB];
    rows(p, 0, p->m, acc);
    return SL_OK;
}

sl_status sl_cpu_mm_omp(const sl_mm *p)
{
#pragma omp parallel
    {
        float acc[JB];
#pragma omp for schedule(static)
        for (int64_t i = 0; i < p->m; i++)
            rows(p, i, i + 1, acc);
    }
    return SL_OK;
}
